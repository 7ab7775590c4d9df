import Foundation

/// What a statistics query computes (`HKStatisticsOptions`).
public struct HKStatisticsOptions: OptionSet, Sendable, Hashable {
  /// The raw bits.
  public let rawValue: UInt
  /// Creates options.
  public init(rawValue: UInt) { self.rawValue = rawValue }
  /// Each source's statistics as well (``HKStatistics/sources``, ``HKStatistics/sumQuantity(for:)``).
  public static let separateBySource = HKStatisticsOptions(rawValue: 1 << 0)
  /// The merged sum of a cumulative type.
  public static let cumulativeSum = HKStatisticsOptions(rawValue: 1 << 4)
}

/// The result of a statistics query over one interval (`HKStatistics`).
public class HKStatistics: NSObject {
  /// The quantity type.
  public let quantityType: HKQuantityType
  /// The interval's start.
  public let startDate: Date
  /// The interval's end.
  public let endDate: Date
  private let sum: HKQuantity?
  private let sumsBySource: [HKSource: HKQuantity]?

  init(
    quantityType: HKQuantityType, startDate: Date, endDate: Date, sum: HKQuantity?,
    sumsBySource: [HKSource: HKQuantity]? = nil
  ) {
    self.quantityType = quantityType
    self.startDate = startDate
    self.endDate = endDate
    self.sum = sum
    self.sumsBySource = sumsBySource
  }

  /// The merged sum; `nil` unless `.cumulativeSum` was asked for and samples matched.
  public func sumQuantity() -> HKQuantity? { sum }

  /// The sources with samples in the interval; `nil` unless `.separateBySource` was asked for.
  public var sources: [HKSource]? {
    sumsBySource.map { $0.keys.sorted { $0.bundleIdentifier < $1.bundleIdentifier } }
  }

  /// One source's own sum in the interval, not merged with the others (a
  /// source's samples hidden by a higher-ranked source still count here);
  /// `nil` unless both `.cumulativeSum` and `.separateBySource` were asked for.
  ///
  /// - Parameter source: The source.
  /// - Returns: Its sum.
  public func sumQuantity(for source: HKSource) -> HKQuantity? { sumsBySource?[source] }

  /// The statistics of `samples` (all of one type) over `interval`: the
  /// merged sum and, when asked, each source's own.
  static func make(
    _ type: HKQuantityType, _ samples: [HKQuantitySample], _ interval: DateInterval,
    options: HKStatisticsOptions, simulation: HealthStoreSimulation, predicate: NSPredicate?
  ) -> HKStatistics {
    var sum: HKQuantity?
    var bySource: [HKSource: HKQuantity]?
    if options.contains(.cumulativeSum), !samples.isEmpty {
      sum = HKQuantity(
        unit: type.baseUnit,
        doubleValue: simulation.statisticsSum(of: samples, in: interval, predicate: predicate))
    }
    if options.contains(.separateBySource) {
      let sources = Dictionary(
        samples.map { ($0.sourceRevision.source.bundleIdentifier, $0.sourceRevision.source) },
        uniquingKeysWith: { first, _ in first })
      let sums = simulation.sumsBySource(of: samples, in: interval)
      bySource = [:]
      for (identifier, source) in sources {
        bySource?[source] =
          options.contains(.cumulativeSum)
          ? HKQuantity(unit: type.baseUnit, doubleValue: sums[identifier] ?? 0) : nil
      }
    }
    return HKStatistics(
      quantityType: type, startDate: interval.start, endDate: interval.end, sum: sum, sumsBySource: bySource)
  }
}

/// Statistics over consecutive intervals (`HKStatisticsCollection`).
public class HKStatisticsCollection: NSObject {
  private let type: HKQuantityType
  private let samples: [HKQuantitySample]
  private let anchor: Date
  private let components: DateComponents
  private let calendar: Calendar
  private let options: HKStatisticsOptions
  private let simulation: HealthStoreSimulation
  private let predicate: NSPredicate?

  init(
    type: HKQuantityType, samples: [HKQuantitySample], anchor: Date, components: DateComponents,
    calendar: Calendar, options: HKStatisticsOptions, simulation: HealthStoreSimulation,
    predicate: NSPredicate?
  ) {
    self.simulation = simulation
    self.predicate = predicate
    self.type = type
    self.samples = samples
    self.anchor = anchor
    self.components = components
    self.calendar = calendar
    self.options = options
  }

  /// The statistics of the interval containing `date`.
  public func statistics(for date: Date) -> HKStatistics? {
    statistics(of: interval(containing: date))
  }

  /// Calls `block` with the statistics of each interval from the one holding
  /// `startDate` through the one holding `endDate`, in order, empty ones included.
  public func enumerateStatistics(
    from startDate: Date, to endDate: Date,
    with block: @escaping (HKStatistics, UnsafeMutablePointer<ObjCBool>) -> Void
  ) {
    var index = self.index(containing: startDate)
    var stop = ObjCBool(false)
    while true {
      let interval = DateInterval(start: boundary(index), end: boundary(index + 1))
      if interval.start > endDate || (interval.start == endDate && index != self.index(containing: startDate))
      {
        break
      }
      withUnsafeMutablePointer(to: &stop) { block(statistics(of: interval), $0) }
      if stop.boolValue { break }
      index += 1
    }
  }

  private func statistics(of interval: DateInterval) -> HKStatistics {
    let inside = samples.filter { sample in
      sample.startDate == sample.endDate
        ? interval.contains(sample.startDate) && sample.startDate < interval.end
        : sample.startDate < interval.end && sample.endDate > interval.start
    }
    return HKStatistics.make(
      type, inside, interval, options: options, simulation: simulation, predicate: predicate)
  }

  private func interval(containing date: Date) -> DateInterval {
    let index = index(containing: date)
    return DateInterval(start: boundary(index), end: boundary(index + 1))
  }

  /// The start of interval `index` (0 starts at the anchor), in the device's calendar.
  private func boundary(_ index: Int) -> Date {
    var scaled = DateComponents()
    if let value = components.year { scaled.year = value * index }
    if let value = components.month { scaled.month = value * index }
    if let value = components.weekOfYear { scaled.weekOfYear = value * index }
    if let value = components.day { scaled.day = value * index }
    if let value = components.hour { scaled.hour = value * index }
    if let value = components.minute { scaled.minute = value * index }
    return calendar.date(byAdding: scaled, to: anchor) ?? anchor
  }

  private func index(containing date: Date) -> Int {
    let length = max(boundary(1).timeIntervalSince(anchor), 1)
    var index = Int((date.timeIntervalSince(anchor) / length).rounded(.down))
    while boundary(index) > date { index -= 1 }
    while boundary(index + 1) <= date { index += 1 }
    return index
  }
}

/// What HealthKit checks as a statistics or statistics-collection query is created: a sum of a
/// discrete type raises an NSInvalidArgumentException, a trap here.
private func checkStatisticsOptions(_ options: HKStatisticsOptions, of quantityType: HKQuantityType) {
  precondition(
    !options.contains(.cumulativeSum) || quantityType.aggregationStyle == .cumulative,
    "Statistics option HKStatisticsOptionCumulativeSum is not compatible with discrete data type "
      + quantityType.identifier)
}

/// One merged statistic over the predicate's interval (`HKStatisticsQuery`).
public class HKStatisticsQuery: HKQuery {
  let quantityType: HKQuantityType
  let options: HKStatisticsOptions
  let handler: @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void

  /// Creates the query.
  public init(
    quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions = [],
    completionHandler handler: @escaping @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void
  ) {
    checkStatisticsOptions(options, of: quantityType)
    self.quantityType = quantityType
    self.options = options
    self.handler = handler
    super.init(objectType: quantityType, predicate: quantitySamplePredicate)
  }

  override func start(in simulation: HealthStoreSimulation, deviceSupported: Bool) {
    simulation.answer(self, reading: quantityType, deviceSupported: deviceSupported) {
      let samples = simulation.visibleSamples(of: quantityType, matching: predicate)
      guard !samples.isEmpty else { return .failure(HKError.make(.errorNoData)) }
      let range = PredicateInterpreter.dateRange(predicate)
      let start = range?.start ?? samples.map(\.startDate).min() ?? Date()
      let end = range?.end ?? samples.map(\.endDate).max() ?? start
      let interval = DateInterval(start: start, end: max(start, end))
      return .success(
        HKStatistics.make(
          quantityType, samples, interval, options: options, simulation: simulation, predicate: predicate))
    } deliver: { query, statistics, error in
      query.handler(query, statistics, error)
    }
  }
}

// Its initializer and start are shaped like the sample queries', alike on purpose: the stand-in
// mirrors HealthKit's classes one for one; what they share is `HealthStoreSimulation.answer`.

/// Merged statistics per calendar interval (`HKStatisticsCollectionQuery`).
public class HKStatisticsCollectionQuery: HKQuery {
  /// Where intervals are anchored.
  public let anchorDate: Date
  /// What is computed.
  public let options: HKStatisticsOptions
  /// Each interval's length.
  public let intervalComponents: DateComponents
  let quantityType: HKQuantityType

  /// Called once with the collection (or an error).
  public var initialResultsHandler:
    (@Sendable (HKStatisticsCollectionQuery, HKStatisticsCollection?, (any Error)?) -> Void)?

  /// Creates the query.
  public init(
    quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions = [],
    anchorDate: Date, intervalComponents: DateComponents
  ) {
    checkStatisticsOptions(options, of: quantityType)
    self.quantityType = quantityType
    self.options = options
    self.anchorDate = anchorDate
    self.intervalComponents = intervalComponents
    super.init(objectType: quantityType, predicate: quantitySamplePredicate)
  }

  override func start(in simulation: HealthStoreSimulation, deviceSupported: Bool) {
    guard let handler = initialResultsHandler else { return }
    simulation.answer(self, reading: quantityType, deviceSupported: deviceSupported) {
      .success(
        HKStatisticsCollection(
          type: quantityType, samples: simulation.visibleSamples(of: quantityType, matching: predicate),
          anchor: anchorDate, components: intervalComponents, calendar: simulation.calendar,
          options: options, simulation: simulation, predicate: predicate))
    } deliver: { query, collection, error in
      handler(query, collection, error)
    }
  }
}
