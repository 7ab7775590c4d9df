import Foundation

/// How the simulated Health database merges a cumulative type's samples for
/// statistics: by the person's Data Sources order for that type
/// (Health › Browse › the type › Data Sources & Access), written here from
/// what Apple documents, on purpose without StepKit's engine, so that tests
/// comparing StepKit with the stand-in compare two implementations.
///
/// The timeline is cut at every sample's start and end. Each piece between
/// two cuts goes to the highest-ranked source with a sample over it, and
/// that source's samples over the piece give their share of their value (in
/// proportion to time). A sample at one instant counts when no sample of a
/// higher-ranked source spans that instant. Samples of one source never hide
/// each other.
struct DataSourcesMerge {
  /// The sources' bundle identifiers, highest priority first.
  let order: [String]

  /// The default order Apple documents for a type's Data Sources list:
  /// entries typed into Health first, then Apple's devices, then other apps
  /// and devices (apps added later go last; here, by name). Apple does not
  /// say whether the Watch or the iPhone comes first; a newly paired Watch
  /// is commonly seen above the iPhone, so the Watch goes first.
  static func defaultOrder(of samples: [HKQuantitySample]) -> [String] {
    var rank: [String: (Int, String)] = [:]
    for sample in samples {
      let source = sample.sourceRevision.source
      let model = (sample.device?.model ?? sample.device?.hardwareVersion ?? "").lowercased()
      let group: Int
      if source.bundleIdentifier == "com.apple.Health" {
        group = 0
      } else if source.bundleIdentifier.hasPrefix("com.apple.health.") {
        group = model.hasPrefix("watch") ? 1 : 2
      } else {
        group = 3
      }
      let known = rank[source.bundleIdentifier]?.0 ?? Int.max
      rank[source.bundleIdentifier] = (min(known, group), source.name)
    }
    return rank.sorted { ($0.value.0, $0.value.1, $0.key) < ($1.value.0, $1.value.1, $1.key) }.map(\.key)
  }

  /// The merged total of `samples` inside `interval`, in `unit`.
  func total(of samples: [HKQuantitySample], in interval: DateInterval, unit: HKUnit) -> Double {
    let position = Dictionary(order.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: min)
    func priority(_ sample: HKQuantitySample) -> Int {
      position[sample.sourceRevision.source.bundleIdentifier] ?? order.count
    }
    let spans = samples.filter { $0.endDate > $0.startDate }
    var cuts = Set([interval.start, interval.end])
    for sample in spans {
      if sample.startDate > interval.start, sample.startDate < interval.end { cuts.insert(sample.startDate) }
      if sample.endDate > interval.start, sample.endDate < interval.end { cuts.insert(sample.endDate) }
    }
    let sorted = cuts.sorted()
    var total = 0.0
    for (from, to) in zip(sorted, sorted.dropFirst()) where from < to {
      let over = spans.filter { $0.startDate <= from && $0.endDate >= to }
      guard let best = over.map(priority).min() else { continue }
      for sample in over where priority(sample) == best {
        let length = sample.endDate.timeIntervalSince(sample.startDate)
        total += sample.quantity.doubleValue(for: unit) * to.timeIntervalSince(from) / length
      }
    }
    for instant in samples where instant.endDate == instant.startDate {
      let moment = instant.startDate
      guard moment >= interval.start, moment < interval.end else { continue }
      let hidden = spans.contains {
        priority($0) < priority(instant) && $0.startDate <= moment && moment < $0.endDate
      }
      if !hidden { total += instant.quantity.doubleValue(for: unit) }
    }
    return total
  }

  /// Each sample's part inside `interval` (in proportion to time; an instant
  /// inside counts whole), summed per source and overall: what HealthKit adds
  /// up without merging.
  static func plainSums(of samples: [HKQuantitySample], in interval: DateInterval, unit: HKUnit)
    -> [String: Double]
  {
    var sums: [String: Double] = [:]
    for sample in samples {
      let value = sample.quantity.doubleValue(for: unit)
      let part: Double
      if sample.startDate == sample.endDate {
        part = interval.start <= sample.startDate && sample.startDate < interval.end ? value : 0
      } else {
        let start = max(sample.startDate, interval.start)
        let end = min(sample.endDate, interval.end)
        part =
          start < end
          ? value * end.timeIntervalSince(start) / sample.endDate.timeIntervalSince(sample.startDate) : 0
      }
      sums[sample.sourceRevision.source.bundleIdentifier, default: 0] += part
    }
    return sums
  }
}
