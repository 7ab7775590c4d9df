import Foundation
import StepKitCore

// Runs a ReferenceCase through the engine's public API and through
// ReferenceCount, and says where they differ. Shared by the differential
// tests and the FuzzTally target; it converts types, and never computes an
// expected value itself.

extension ReferenceCase {
  /// The engine's samples for this case, in the same order.
  var engineSamples: [Sample] {
    samples.map { sample in
      let device: Device? =
        sample.model == nil && sample.hardware == nil && sample.deviceName == nil
        ? nil : Device(name: sample.deviceName, model: sample.model, hardware: sample.hardware)
      return Sample(
        kind: sample.kind == .steps ? .steps : .distance, start: Date(epochMilliseconds: sample.startMs),
        end: Date(epochMilliseconds: sample.endMs), value: sample.value,
        utcOffsetSeconds: sample.offsetSeconds,
        source: sample.source, device: device, isUserEntered: sample.userEntered)
    }
  }

  /// The engine's options for this case.
  func engineOptions(recordsCountedValues: Bool) -> CountingOptions {
    let policy: CountingPolicy
    switch options.policy {
    case .health: policy = .health
    case .device: policy = .device
    case .all: policy = .all
    }
    let unit: BucketUnit
    switch options.unit {
    case .hour: unit = .hour
    case .day: unit = .day
    case .week: unit = .week
    case .month: unit = .month
    }
    let zone: TimeZoneRule
    switch options.zone {
    case .recorded: zone = .recorded
    case .named(let timeZone): zone = .zone(timeZone)
    }
    func day(_ day: ReferenceCount.Day?) -> LocalDate? {
      day.flatMap { LocalDate(year: $0.year, month: $0.month, day: $0.day) }
    }
    return CountingOptions(
      policy: policy, ranking: SourceRanking(explicitOrder: options.explicitOrder), unit: unit,
      timeZone: zone,
      dayStart: DayStart(hour: options.dayStart.hour, minute: options.dayStart.minute)!,
      from: day(options.from), to: day(options.to), recordsCountedValues: recordsCountedValues)
  }

  /// Whether two sums agree within 1e-9 relative (and 1e-9 absolute near zero).
  static func agree(_ a: Double, _ b: Double) -> Bool {
    abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1)
  }

  /// Counts the case with the engine (through `tally`) and with the reference;
  /// returns the differences, empty when they agree.
  ///
  /// - Parameters:
  ///   - recordsCountedValues: Whether to compare what each sample and source counted for, too.
  ///   - tally: Runs the engine on a log.
  func differences(recordsCountedValues: Bool, tally: (SampleLog, CountingOptions) -> Tally) -> [String] {
    let expected = ReferenceCount.count(samples, options)
    let log = SampleLog(engineSamples)
    let result = tally(log, engineOptions(recordsCountedValues: recordsCountedValues))
    var found: [String] = []
    let validCount = samples.filter(\.isValid).count
    if log.count != validCount {
      found.append("the engine stored \(log.count) samples, \(validCount) are valid")
    }
    let labels = result.buckets.map { bucket in
      ReferenceCount.Label(
        day: ReferenceCount.Day(
          year: bucket.firstDay.year, month: bucket.firstDay.month, day: bucket.firstDay.day),
        hour: bucket.hour ?? 0)
    }
    guard labels == expected.rows.map(\.label) else {
      let engine = labels.map(\.description)
      let reference = expected.rows.map(\.label.description)
      return found + ["buckets differ: engine \(engine), reference \(reference)"]
    }
    for (bucket, row) in zip(result.buckets, expected.rows) {
      let pairs = [
        ("steps", bucket.steps, row.steps), ("distance", bucket.distanceMeters, row.distance),
        ("raw", bucket.rawSteps, row.raw), ("manual", bucket.manualSteps, row.manual),
      ]
      for (name, engine, reference) in pairs where !Self.agree(engine, reference) {
        found.append("\(row.label) \(name): engine \(engine), reference \(reference)")
      }
    }
    guard recordsCountedValues else { return found }
    let counted = Array(result.countedValues)
    if counted.count != expected.countedByValidSample.count {
      found.append(
        "counted values: engine \(counted.count), reference \(expected.countedByValidSample.count)")
    } else {
      for (index, (engine, reference)) in zip(counted, expected.countedByValidSample).enumerated()
      where !Self.agree(engine, reference) {
        found.append("valid sample \(index) counted for: engine \(engine), reference \(reference)")
      }
    }
    for row in result.sources {
      let reference = expected.countedBySource[row.name] ?? ReferenceCount.Counted()
      if !Self.agree(row.countedSteps, reference.steps)
        || !Self.agree(row.countedDistanceMeters, reference.distance)
      {
        found.append(
          "\(row.name) counted: engine \(row.countedSteps) steps, \(row.countedDistanceMeters) m; "
            + "reference \(reference.steps) steps, \(reference.distance) m")
      }
    }
    return found
  }
}
