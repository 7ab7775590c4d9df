import Foundation

// This file must not import StepKitCore: it is the count written from
// COUNTING.md alone, with its own types and Foundation's calendar, so that it
// can disagree with the engine. It is slow on purpose (quadratic in the
// samples); it is meant for a few dozen samples at a time.

/// A naive count of samples as COUNTING.md defines it: the policy, the merge by
/// source priority over elementary intervals, and buckets found with
/// Foundation's `Calendar`.
///
/// The merge cuts the timeline at every boundary of every admitted sample; in
/// each elementary interval the highest-ranked source with a sample covering it
/// keeps it, and each of that source's samples covering it adds its value pro
/// rata. An instant counts when no higher-ranked source covers it.
enum ReferenceCount {
  /// What a sample measures.
  enum Kind: Int, CaseIterable {
    case steps = 0
    case distance = 1
  }

  /// Which samples take part (COUNTING.md, step 1).
  enum Policy: CaseIterable {
    case health
    case device
    case all
  }

  /// The bucket length.
  enum Unit: CaseIterable {
    case hour
    case day
    case week
    case month
  }

  /// Where buckets begin (COUNTING.md, step 3).
  enum Zone {
    /// Each sample's recorded UTC offset.
    case recorded
    /// A named IANA zone.
    case named(TimeZone)
  }

  /// A sample in plain fields.
  struct Sample {
    var kind: Kind
    /// Milliseconds since 1970.
    var startMs: Int64
    var endMs: Int64
    var value: Double
    /// The UTC offset recorded with the start date.
    var offsetSeconds: Int
    var source: String
    /// The device's model and hardware identifier, when the sample carries a device.
    var model: String?
    var hardware: String?
    /// A device name alone (no model, no hardware) says nothing about the class.
    var deviceName: String?
    var userEntered: Bool

    /// COUNTING.md, Inputs: `e < s`, a negative, NaN or infinite value are never counted.
    var isValid: Bool { endMs >= startMs && value.isFinite && value >= 0 }
  }

  /// A local calendar day.
  struct Day: Hashable, Comparable, CustomStringConvertible {
    var year: Int
    var month: Int
    var day: Int

    static func < (a: Day, b: Day) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }

    var description: String {
      String(format: "%04d-%02d-%02d", year, month, day)
    }
  }

  /// A bucket's name: its first local day, and the local hour for hour buckets (0 otherwise).
  struct Label: Hashable, Comparable, CustomStringConvertible {
    var day: Day
    var hour: Int

    static func < (a: Label, b: Label) -> Bool { (a.day, a.hour) < (b.day, b.hour) }

    var description: String { hour == 0 ? day.description : "\(day) \(hour):00" }
  }

  /// What to count and how.
  struct Options {
    var policy: Policy = .health
    /// Source names that come first, in this order.
    var explicitOrder: [String] = []
    var unit: Unit = .day
    var zone: Zone = .recorded
    /// The first and last local day to report.
    var from: Day?
    var to: Day?
    /// The local time at which days begin (COUNTING.md, "A day start"): hour and minute;
    /// midnight is `(0, 0)`. Hour buckets ignore it.
    var dayStart: (hour: Int, minute: Int) = (0, 0)
  }

  /// One bucket's sums.
  struct Row: CustomStringConvertible {
    var label: Label
    var steps = 0.0
    var distance = 0.0
    var raw = 0.0
    var manual = 0.0

    var description: String { "\(label): steps \(steps), distance \(distance), raw \(raw), manual \(manual)" }
  }

  /// The count.
  struct Result {
    /// Every bucket in the range, in order, empty ones included.
    var rows: [Row]
    /// For each valid sample, in input order, what it counted for inside the range.
    var countedByValidSample: [Double]
    /// For each source, what it counted for inside the range, steps and distance.
    var countedBySource: [String: Counted]
  }

  /// What a source counted for.
  struct Counted {
    var steps = 0.0
    var distance = 0.0
  }

  /// The source classes of COUNTING.md, step 2, highest first.
  enum SourceClass: Int, Comparable {
    case typedIn = 1
    case appleWatch = 2
    case iPhone = 3
    case other = 4

    static func < (a: SourceClass, b: SourceClass) -> Bool { a.rawValue < b.rawValue }
  }

  /// The class of `source` for one kind, decided by its valid samples of that kind alone.
  static func sourceClass(_ source: String, of samples: [Sample]) -> SourceClass {
    let own = samples.filter { $0.source == source }
    if !own.isEmpty && own.allSatisfy(\.userEntered) { return .typedIn }
    // "Device information": a model or hardware identifier to judge by.
    let described = own.filter { $0.model != nil || $0.hardware != nil }
    if !described.isEmpty {
      if described.contains(where: { $0.model == "Watch" || ($0.hardware ?? "").hasPrefix("Watch") }) {
        return .appleWatch
      }
      if described.contains(where: { $0.model == "iPhone" || ($0.hardware ?? "").hasPrefix("iPhone") }) {
        return .iPhone
      }
      return .other
    }
    if source.contains("Apple Watch") { return .appleWatch }
    if source.contains("iPhone") { return .iPhone }
    return .other
  }

  /// Sources ranked highest first: the explicit order, then class, then name by Unicode scalars.
  static func ranking(_ sources: [String], classes: [String: SourceClass], explicitOrder: [String])
    -> [String]
  {
    func explicitPosition(_ name: String) -> Int? { explicitOrder.firstIndex(of: name) }
    return sources.sorted { a, b in
      switch (explicitPosition(a), explicitPosition(b)) {
      case (let x?, let y?): return x < y
      case (.some, nil): return true
      case (nil, .some): return false
      case (nil, nil):
        if classes[a]! != classes[b]! { return classes[a]! < classes[b]! }
        let sa = a.unicodeScalars.map(\.value)
        let sb = b.unicodeScalars.map(\.value)
        return sa.lexicographicallyPrecedes(sb)
      }
    }
  }

  /// Counts `samples` as COUNTING.md says.
  static func count(_ samples: [Sample], _ options: Options) -> Result {
    var buckets = BucketFinder(unit: options.unit, zone: options.zone, dayStart: options.dayStart)
    let validIndices = samples.indices.filter { samples[$0].isValid }
    let valid = validIndices.map { samples[$0] }

    // The range: from the bucket of the first valid sample to that of the last, or --from/--to;
    // narrowed below to the buckets the policy counts something in.
    var firstLabel: Label?
    var lastLabel: Label?
    for sample in valid {
      let first = buckets.bucket(at: sample.startMs, offsetSeconds: sample.offsetSeconds).label
      let lastInstant = sample.endMs > sample.startMs ? sample.endMs - 1 : sample.startMs
      let last = buckets.bucket(at: lastInstant, offsetSeconds: sample.offsetSeconds).label
      firstLabel = min(firstLabel ?? first, first)
      lastLabel = max(lastLabel ?? last, last)
    }
    if let from = options.from { firstLabel = buckets.label(ofDay: from, lastHour: false) }
    if let to = options.to { lastLabel = buckets.label(ofDay: to, lastHour: true) }
    if options.unit == .hour && (options.dayStart.hour != 0 || options.dayStart.minute != 0) {
      // Hours of the days from --from to --to: from the hour holding the first day's start to the
      // hour before the one holding the start of the day after the last.
      if let from = options.from { firstLabel = buckets.hourLabel(startingDay: from) }
      if let to = options.to {
        lastLabel = buckets.hourLabel(before: buckets.hourLabel(startingDay: to, plusDays: 1))
      }
    }
    var labels: [Label] = []
    if var label = firstLabel, let last = lastLabel {
      while label <= last {
        labels.append(label)
        label = buckets.label(after: label)
      }
    }
    let inRange = Set(labels)
    var sums: [Label: Row] = [:]
    func add(_ label: Label, _ amount: Double, _ field: WritableKeyPath<Row, Double>) -> Double {
      guard inRange.contains(label) else { return 0 }
      sums[label, default: Row(label: label)][keyPath: field] += amount
      return amount
    }
    /// Adds the part `[a, b)` of `sample` pro rata, split across buckets; returns what landed in range.
    func addSpan(_ a: Int64, _ b: Int64, of sample: Sample, _ field: WritableKeyPath<Row, Double>) -> Double {
      if sample.startMs == sample.endMs {
        return add(
          buckets.bucket(at: sample.startMs, offsetSeconds: sample.offsetSeconds).label, sample.value, field)
      }
      var landed = 0.0
      var cursor = a
      while cursor < b {
        let bucket = buckets.bucket(at: cursor, offsetSeconds: sample.offsetSeconds)
        let end = min(b, bucket.endMs)
        let share = sample.value * Double(end - cursor) / Double(sample.endMs - sample.startMs)
        landed += add(bucket.label, share, field)
        cursor = end
      }
      return landed
    }

    // raw_steps and manual_steps: every valid step sample, no merge.
    for sample in valid where sample.kind == .steps {
      _ = addSpan(sample.startMs, sample.endMs, of: sample, \.raw)
      if sample.userEntered { _ = addSpan(sample.startMs, sample.endMs, of: sample, \.manual) }
    }

    var countedByValidSample = [Double](repeating: 0, count: valid.count)
    var countedBySource: [String: Counted] = [:]
    for kind in Kind.allCases {
      let field: WritableKeyPath<Row, Double> = kind == .steps ? \.steps : \.distance
      let counted: WritableKeyPath<Counted, Double> = kind == .steps ? \.steps : \.distance
      let ofKind = valid.indices.filter { valid[$0].kind == kind }
      let sources = Array(Set(ofKind.map { valid[$0].source }))
      var classes: [String: SourceClass] = [:]
      for source in sources { classes[source] = sourceClass(source, of: ofKind.map { valid[$0] }) }
      // Step 1: the policy, with the class for this kind.
      let admitted = ofKind.filter { index in
        let sample = valid[index]
        switch options.policy {
        case .all: return true
        case .health: return !sample.userEntered
        case .device:
          return !sample.userEntered && [.appleWatch, .iPhone].contains(classes[sample.source]!)
        }
      }
      let ranked = ranking(sources, classes: classes, explicitOrder: options.explicitOrder)
      var rank: [String: Int] = [:]
      for (position, source) in ranked.enumerated() { rank[source] = position }

      // Step 2: elementary intervals between every boundary of an admitted sample.
      let spans = admitted.filter { valid[$0].startMs < valid[$0].endMs }
      let cuts = Array(Set(spans.flatMap { [valid[$0].startMs, valid[$0].endMs] })).sorted()
      for (a, b) in zip(cuts, cuts.dropFirst()) {
        let covering = spans.filter { valid[$0].startMs <= a && b <= valid[$0].endMs }
        guard let best = covering.map({ rank[valid[$0].source]! }).min() else { continue }
        for index in covering where rank[valid[index].source]! == best {
          let landed = addSpan(a, b, of: valid[index], field)
          countedByValidSample[index] += landed
          countedBySource[valid[index].source, default: Counted()][keyPath: counted] += landed
        }
      }
      // Instants: whole, unless a higher-ranked source covers them.
      for index in admitted where valid[index].startMs == valid[index].endMs {
        let instant = valid[index]
        let covered = spans.contains { other in
          rank[valid[other].source]! < rank[instant.source]!
            && valid[other].startMs <= instant.startMs && instant.startMs < valid[other].endMs
        }
        guard !covered else { continue }
        let landed = addSpan(instant.startMs, instant.startMs, of: instant, field)
        countedByValidSample[index] += landed
        countedBySource[instant.source, default: Counted()][keyPath: counted] += landed
      }
    }
    // Outputs: buckets holding only samples the policy drops neither open nor close a range the
    // caller did not fix, unless the policy counts nothing at all.
    var rows = labels.map { sums[$0] ?? Row(label: $0) }
    func counts(_ row: Row) -> Bool { row.steps != 0 || row.distance != 0 }
    if rows.contains(where: counts) {
      if options.from == nil { rows = Array(rows.drop { !counts($0) }) }
      if options.to == nil { while let last = rows.last, !counts(last) { rows.removeLast() } }
    }
    return Result(
      rows: rows, countedByValidSample: countedByValidSample, countedBySource: countedBySource)
  }
}

/// Finds buckets with Foundation's calendar: a bucket is the calendar's hour,
/// day, ISO week or month holding an instant, in the sample's recorded offset
/// or the named zone. With a day start, a day runs from that local time to the
/// same local time the next day (the first time the clock reads it, or the
/// first moment after a DST gap that skips it); weeks and months begin at the
/// day start of their first day.
struct BucketFinder {
  let unit: ReferenceCount.Unit
  let zone: ReferenceCount.Zone
  let dayStart: (hour: Int, minute: Int)
  private var calendars: [Int: Calendar] = [:]
  private var named: Calendar?
  /// A UTC Gregorian calendar for stepping from one label to the next.
  private let labels: Calendar

  init(unit: ReferenceCount.Unit, zone: ReferenceCount.Zone, dayStart: (hour: Int, minute: Int) = (0, 0)) {
    self.unit = unit
    self.zone = zone
    self.dayStart = dayStart
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(identifier: "UTC")!
    labels = utc
    if case .named(let timeZone) = zone { named = Self.calendar(timeZone) }
  }

  private static func calendar(_ timeZone: TimeZone) -> Calendar {
    var calendar = Calendar(identifier: .iso8601)
    calendar.timeZone = timeZone
    return calendar
  }

  private mutating func calendar(offsetSeconds: Int) -> Calendar {
    if let named { return named }
    if let known = calendars[offsetSeconds] { return known }
    let made = Self.calendar(TimeZone(secondsFromGMT: offsetSeconds)!)
    calendars[offsetSeconds] = made
    return made
  }

  /// The bucket holding the instant `t` (ms), and the instant its successor begins.
  mutating func bucket(at t: Int64, offsetSeconds: Int) -> (label: ReferenceCount.Label, endMs: Int64) {
    let calendar = calendar(offsetSeconds: offsetSeconds)
    let date = Date(timeIntervalSince1970: Double(t) / 1000)
    if unit != .hour && (dayStart.hour != 0 || dayStart.minute != 0) {
      return bucketFromDayStart(at: date, calendar)
    }
    let component: Calendar.Component
    switch unit {
    case .hour: component = .hour
    case .day: component = .day
    case .week: component = .weekOfYear
    case .month: component = .month
    }
    let interval = calendar.dateInterval(of: component, for: date)!
    // An hour is named by the clock at its start, as HealthKit names an hourly statistic by its
    // startDate: across Pacific/Chatham's changes at a quarter to the hour, Foundation's hour
    // begins on the clock before the change. Where Foundation's hour begins off the hour (Lord
    // Howe's half-hour changes), the instant's own clock hour names it.
    let startParts = calendar.dateComponents([.minute, .second], from: interval.start)
    let namedAtStart = startParts.minute == 0 && startParts.second == 0
    let local = calendar.dateComponents(
      [.year, .month, .day, .hour], from: unit == .hour && !namedAtStart ? date : interval.start)
    let label = ReferenceCount.Label(
      day: ReferenceCount.Day(year: local.year!, month: local.month!, day: local.day!),
      hour: unit == .hour ? local.hour! : 0)
    return (label, Int64((interval.end.timeIntervalSince1970 * 1000).rounded()))
  }

  /// Local noon of `day` plus `days`, as a date to take components from.
  private func noon(_ day: ReferenceCount.Day, plus days: Int = 0, _ calendar: Calendar) -> Date {
    let noon = calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12))!
    return calendar.date(byAdding: .day, value: days, to: noon)!
  }

  private func day(of date: Date, _ calendar: Calendar) -> ReferenceCount.Day {
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return ReferenceCount.Day(year: parts.year!, month: parts.month!, day: parts.day!)
  }

  /// The instant local `day` begins at the day start: the first instant whose clock reads it, or
  /// the first moment after a gap that skips it.
  ///
  /// Found by walking the clock a minute at a time, not with `Calendar.nextDate`: Foundation's
  /// `nextDate` after midnight of 2026-04-05 in Pacific/Chatham, matching 03:54, answers 03:54 the
  /// next day (the clocks went back from 03:45 to 02:45 that night, and 03:54 came only once).
  private func start(of day: ReferenceCount.Day, _ calendar: Calendar) -> Date {
    let zone = calendar.timeZone
    // The day start's clock reading, counted in seconds as if it were UTC.
    let wall = labels.date(
      from: DateComponents(
        year: day.year, month: day.month, day: day.day, hour: dayStart.hour, minute: dayStart.minute))!
      .timeIntervalSince1970
    func clock(_ instant: TimeInterval) -> TimeInterval {
      instant + Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant)))
    }
    // The offsets in effect within two days of it: the first one, and the one after each change.
    var moment = Date(timeIntervalSince1970: wall - 2 * 86_400)
    var offsets = [zone.secondsFromGMT(for: moment)]
    while let change = zone.nextDaylightSavingTimeTransition(after: moment),
      change.timeIntervalSince1970 < wall + 2 * 86_400
    {
      offsets.append(zone.secondsFromGMT(for: change))
      moment = change
    }
    // Before `wall` less the largest offset, every clock reads earlier than the day start. Changes
    // and day starts fall on whole minutes, so the first whole minute reading the day start or
    // later is the answer: the reading itself (its first time when the clock repeats it), or the
    // moment the clock jumps past it.
    var instant = wall - Double(offsets.max()!)
    while clock(instant) < wall { instant += 60 }
    return Date(timeIntervalSince1970: instant)
  }

  private func bucketFromDayStart(at date: Date, _ calendar: Calendar) -> (
    label: ReferenceCount.Label, endMs: Int64
  ) {
    // The local date, or the one before when the instant precedes that date's day start.
    var labelDay = day(of: date, calendar)
    if date < start(of: labelDay, calendar) {
      labelDay = day(of: noon(labelDay, plus: -1, calendar), calendar)
    }
    let first: ReferenceCount.Day
    let next: ReferenceCount.Day
    switch unit {
    case .hour, .day:
      first = labelDay
      next = day(of: noon(labelDay, plus: 1, calendar), calendar)
    case .week:
      let monday = calendar.dateInterval(of: .weekOfYear, for: noon(labelDay, calendar))!.start
      first = day(of: monday, calendar)
      next = day(of: noon(first, plus: 7, calendar), calendar)
    case .month:
      first = ReferenceCount.Day(year: labelDay.year, month: labelDay.month, day: 1)
      let later = calendar.date(byAdding: .month, value: 1, to: noon(first, calendar))!
      next = day(of: later, calendar)
    }
    let end = start(of: next, calendar)
    return (ReferenceCount.Label(day: first, hour: 0), Int64((end.timeIntervalSince1970 * 1000).rounded()))
  }

  /// The hour label of the moment local `day` (plus `plusDays`) starts at the day start.
  func hourLabel(startingDay day: ReferenceCount.Day, plusDays: Int = 0) -> ReferenceCount.Label {
    // Local times are the same under every fixed offset: UTC stands for them when no zone is named.
    let calendar = named ?? labels
    let shifted = self.day(of: noon(day, plus: plusDays, calendar), calendar)
    let start = start(of: shifted, calendar)
    let parts = calendar.dateComponents([.year, .month, .day, .hour], from: start)
    return ReferenceCount.Label(
      day: ReferenceCount.Day(year: parts.year!, month: parts.month!, day: parts.day!), hour: parts.hour!)
  }

  /// The hour label before `label` on the local clock.
  func hourLabel(before label: ReferenceCount.Label) -> ReferenceCount.Label {
    if label.hour > 0 { return ReferenceCount.Label(day: label.day, hour: label.hour - 1) }
    let date = labels.date(
      from: DateComponents(year: label.day.year, month: label.day.month, day: label.day.day))!
    return ReferenceCount.Label(
      day: day(of: labels.date(byAdding: .day, value: -1, to: date)!, labels), hour: 23)
  }

  /// The label of the bucket holding local `day` (its last hour for hour buckets when `lastHour`).
  func label(ofDay day: ReferenceCount.Day, lastHour: Bool) -> ReferenceCount.Label {
    let date = labels.date(from: DateComponents(year: day.year, month: day.month, day: day.day))!
    var iso = Calendar(identifier: .iso8601)
    iso.timeZone = labels.timeZone
    let start: Date
    switch unit {
    case .hour, .day: start = date
    case .week: start = iso.dateInterval(of: .weekOfYear, for: date)!.start
    case .month: start = labels.dateInterval(of: .month, for: date)!.start
    }
    let parts = labels.dateComponents([.year, .month, .day], from: start)
    return ReferenceCount.Label(
      day: ReferenceCount.Day(year: parts.year!, month: parts.month!, day: parts.day!),
      hour: unit == .hour && lastHour ? 23 : 0)
  }

  /// The label of the bucket after `label`, on the local clock (a skipped DST hour included).
  func label(after label: ReferenceCount.Label) -> ReferenceCount.Label {
    if unit == .hour && label.hour < 23 { return ReferenceCount.Label(day: label.day, hour: label.hour + 1) }
    let date = labels.date(
      from: DateComponents(year: label.day.year, month: label.day.month, day: label.day.day))!
    let next: Date
    switch unit {
    case .hour, .day: next = labels.date(byAdding: .day, value: 1, to: date)!
    case .week: next = labels.date(byAdding: .day, value: 7, to: date)!
    case .month: next = labels.date(byAdding: .month, value: 1, to: date)!
    }
    let parts = labels.dateComponents([.year, .month, .day], from: next)
    return ReferenceCount.Label(
      day: ReferenceCount.Day(year: parts.year!, month: parts.month!, day: parts.day!), hour: 0)
  }
}
