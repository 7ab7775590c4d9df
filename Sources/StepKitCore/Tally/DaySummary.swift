/// One export's data yield over its days, as studies report it: first and last
/// day with data, days with data, valid days under a ``ValidDayRule``, mean and
/// median steps over the valid days, each source class's share of the counted
/// steps, and the typed-in steps the policy left out.
///
/// The formulas, over the tally's day buckets (the rows `stepkit steps` prints):
///
/// - a day *has data* when ``Tally/Bucket/hoursWithData`` is at least 1;
///   ``firstDay`` and ``lastDay`` are the first and last such day;
/// - ``validDays``: the days that ``ValidDayRule/isValid(_:)`` accepts;
/// - ``meanValidSteps``: the sum of the valid days' steps (each rounded as
///   output) divided by ``validDays``; ``medianValidSteps``: the middle value of
///   those steps sorted, or the mean of the two middle values for an even
///   count; both `nil` without valid days;
/// - ``stepShares``: each class's counted steps (``Tally/SourceRow/countedSteps``
///   of its sources, classed for steps) divided by all counted steps; empty
///   when nothing was counted;
/// - ``typedInStepsLeftOut``: the typed-in steps (``Tally/Bucket/roundedManualSteps``
///   summed over the days, as ``RoundedTotals`` adds them) when the policy leaves
///   them out, 0 under ``CountingPolicy/all``.
public struct DaySummary: Sendable, Hashable {
  /// The rule valid days were judged by.
  public var rule: ValidDayRule
  /// The days in the tally's range.
  public var days: Int
  /// The first day with data.
  public var firstDay: LocalDate?
  /// The last day with data.
  public var lastDay: LocalDate?
  /// Days with at least one hour with data.
  public var daysWithData: Int
  /// Days the rule accepts.
  public var validDays: Int
  /// Mean steps over the valid days.
  public var meanValidSteps: Double?
  /// Median steps over the valid days.
  public var medianValidSteps: Double?
  /// Counted steps over every day (rounded per day, as the rows add up).
  public var steps: Int64
  /// The share (0...1) of the counted steps from each source class that contributed.
  public var stepShares: [SourceClass: Double]
  /// Typed-in steps that the policy did not count.
  public var typedInStepsLeftOut: Int64

  /// Summarizes `tally`, whose buckets must be days.
  ///
  /// - Parameters:
  ///   - tally: A tally by day.
  ///   - rule: When a day is valid.
  public init(_ tally: Tally, rule: ValidDayRule) {
    self.rule = rule
    days = tally.buckets.count
    let withData = tally.buckets.filter { $0.hoursWithData > 0 }
    firstDay = withData.first?.firstDay
    lastDay = withData.last?.firstDay
    daysWithData = withData.count
    let valid = tally.buckets.filter(rule.isValid).map(\.roundedSteps).sorted()
    validDays = valid.count
    if valid.isEmpty {
      meanValidSteps = nil
      medianValidSteps = nil
    } else {
      meanValidSteps = Double(valid.reduce(0, +)) / Double(valid.count)
      let middle = valid.count / 2
      medianValidSteps =
        valid.count % 2 == 1 ? Double(valid[middle]) : Double(valid[middle - 1] + valid[middle]) / 2
    }
    steps = tally.roundedTotal.steps
    var byClass: [SourceClass: Double] = [:]
    for source in tally.sources where source.countedSteps > 0 {
      byClass[source.sourceClass, default: 0] += source.countedSteps
    }
    // Summed in the classes' order: a dictionary's order changes from process to process, and
    // with it the last digit of each share.
    let counted = SourceClass.allCases.reduce(0) { $0 + (byClass[$1] ?? 0) }
    stepShares = counted > 0 ? byClass.mapValues { $0 / counted } : [:]
    typedInStepsLeftOut = tally.options.policy == .all ? 0 : tally.roundedTotal.manualSteps
  }
}
