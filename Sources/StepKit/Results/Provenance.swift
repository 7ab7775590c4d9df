import Foundation

/// Where a result came from, and what a person should know about it.
public struct Provenance: Sendable, Hashable {
  /// The provider that answered.
  public var source: StepSourceKind
  /// The counting policy the answer follows.
  public var policy: CountingPolicy
  /// Whether steps typed in by hand were left out of the answer.
  public var manualEntries: ManualEntries
  /// Why a fallback source answered instead of the preferred one; `nil`
  /// when the preferred source answered.
  public var fallbackReason: FallbackReason?
  /// Facts worth telling the person (for example, that no data may mean
  /// that read access was denied).
  public var notes: [ResultNote]

  /// Creates a provenance record.
  ///
  /// - Parameters:
  ///   - source: The provider that answered.
  ///   - policy: The counting policy applied.
  ///   - manualEntries: Whether hand-typed steps were left out.
  ///   - fallbackReason: Why a fallback answered, if one did.
  ///   - notes: Facts worth telling the person.
  public init(
    source: StepSourceKind, policy: CountingPolicy, manualEntries: ManualEntries,
    fallbackReason: FallbackReason? = nil, notes: [ResultNote] = []
  ) {
    self.source = source
    self.policy = policy
    self.manualEntries = manualEntries
    self.fallbackReason = fallbackReason
    self.notes = notes
  }
}

/// Whether steps a person typed in by hand take part in a result.
public enum ManualEntries: String, Sendable, Hashable, Codable {
  /// Left out (HealthKit with the `health` or `device` policy).
  case excluded
  /// Counted (the `all` policy).
  case included
  /// The source has no hand-typed entries (CoreMotion measures motion only).
  case notApplicable
}

/// Why ``StepCounter`` answered from its fallback source.
public enum FallbackReason: Sendable, Hashable {
  /// HealthKit is not available on this device (some iPads, Mac).
  case healthDataUnavailable
  /// The device is locked, so the Health database cannot be read now.
  case healthDatabaseLocked
  /// HealthKit returned no samples at all; read access may have been denied.
  case healthKitReturnedNoData
  /// The app has not asked for HealthKit access yet.
  case healthKitNotAuthorized
  /// The counter has no HealthKit source.
  case healthKitNotConfigured
  /// HealthKit failed with this error.
  case healthKitFailed(StepKitError)

  /// A one-line English explanation.
  public var explanation: String {
    switch self {
    case .healthDataUnavailable: return "Health data is not available on this device."
    case .healthDatabaseLocked: return "The device is locked, so Health data cannot be read right now."
    case .healthKitReturnedNoData:
      return "HealthKit returned no steps; read access may have been denied."
    case .healthKitNotAuthorized: return "The app has not requested HealthKit access yet."
    case .healthKitNotConfigured: return "No HealthKit source is configured."
    case .healthKitFailed(let error): return "HealthKit failed: \(error.description(in: .english))"
    }
  }
}

/// A fact that comes with a result.
public enum ResultNote: Sendable, Hashable {
  /// The source returned no samples at all. HealthKit hides read denial:
  /// a denied app sees no data. ``StepKitError/settingsPathForHealth`` says
  /// where the person can check.
  case noDataMayMeanDeniedAccess
  /// Part of the interval lies outside what the source keeps (CoreMotion
  /// keeps seven days); only the part from `earliestAvailable` was counted.
  case truncatedHistory(earliestAvailable: Date)
  /// The phone is locked, so Health cannot be read: this is the last count
  /// read before (or an empty one), and it updates once the phone is unlocked.
  case deviceLocked
  /// HealthKit's statistics answered `healthKitValue`, the sources added up
  /// instead of merged (reported on devices with an iPhone and an Apple
  /// Watch); the result is StepKit's merge of the same samples instead.
  case healthKitMergeCorrected(healthKitValue: Double)

  /// A one-line English explanation.
  public var explanation: String {
    switch self {
    case .noDataMayMeanDeniedAccess:
      return "No step data was returned. If this is unexpected, the app may not be allowed to read it: "
        + StepKitError.settingsPathForHealth(in: .english) + "."
    case .truncatedHistory(let earliest):
      return "Only data from \(earliest) on is available from this source."
    case .deviceLocked:
      return "The device is locked, so Health cannot be read right now: this is the last count read. "
        + "It updates when the device is unlocked."
    case .healthKitMergeCorrected(let value):
      return "HealthKit answered \(Int(value.rounded())), adding up the iPhone and the Apple Watch instead "
        + "of merging them; this is the merged count of the same samples."
    }
  }
}

/// Results that carry a ``Provenance``.
public protocol ProvenancedResult: Sendable {
  /// Where the result came from.
  var provenance: Provenance { get set }
  /// Whether the source returned any samples at all for the question.
  var hasData: Bool { get }
}

extension Provenance {
  /// One provenance for answers given day by day (at least one, as
  /// ``LocalDays`` always gives a day): the first day's, with every day's notes, each once.
  static func joined(_ days: [Provenance]) -> Provenance {
    var first = days[0]
    for day in days.dropFirst() {
      for note in day.notes where !first.notes.contains(note) { first.notes.append(note) }
    }
    return first
  }
}
