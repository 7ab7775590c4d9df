/// When a day counts as valid for a study: a minimum of hours holding counted
/// steps (the usual wear-time proxy), a minimum step count, or both.
///
/// ```swift
/// let rule = ValidDayRule("hours:10,steps:500")!
/// let valid = tally.buckets.filter(rule.isValid)
/// ```
public struct ValidDayRule: Sendable, Hashable, CustomStringConvertible {
  /// The least ``Tally/Bucket/hoursWithData`` a valid day has, or `nil` for no minimum.
  public var minimumHours: Int?
  /// The least counted steps (rounded as output) a valid day has, or `nil` for no minimum.
  public var minimumSteps: Int64?

  /// The default: at least 10 hours with data.
  public static let `default` = ValidDayRule(minimumHours: 10)

  /// A rule; with neither minimum every day is valid.
  public init(minimumHours: Int? = nil, minimumSteps: Int64? = nil) {
    self.minimumHours = minimumHours
    self.minimumSteps = minimumSteps
  }

  /// Parses `hours:N`, `steps:N`, or both separated by a comma
  /// (`hours:10,steps:500`); `nil` for anything else.
  public init?(_ text: String) {
    var rule = ValidDayRule()
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard !parts.isEmpty, parts.count <= 2 else { return nil }
    for part in parts {
      let pair = part.split(separator: ":", omittingEmptySubsequences: false)
      guard pair.count == 2, !pair[1].isEmpty, pair[1].allSatisfy({ $0.isASCII && $0.isNumber }),
        let value = Int64(pair[1])
      else { return nil }
      switch pair[0] {
      case "hours" where rule.minimumHours == nil && value <= 25: rule.minimumHours = Int(value)
      case "steps" where rule.minimumSteps == nil: rule.minimumSteps = value
      default: return nil
      }
    }
    self = rule
  }

  /// `hours:10`, `steps:500` or `hours:10,steps:500` (`any` with neither minimum).
  public var description: String {
    let parts = [minimumHours.map { "hours:\($0)" }, minimumSteps.map { "steps:\($0)" }].compactMap { $0 }
    return parts.isEmpty ? "any" : parts.joined(separator: ",")
  }

  /// Whether `bucket` (a day) meets every minimum of the rule.
  public func isValid(_ bucket: Tally.Bucket) -> Bool {
    if let minimumHours, bucket.hoursWithData < minimumHours { return false }
    if let minimumSteps, bucket.roundedSteps < minimumSteps { return false }
    return true
  }
}
