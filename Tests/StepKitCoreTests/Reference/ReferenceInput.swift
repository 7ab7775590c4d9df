import Foundation

/// A set of samples and the options to count them with, drawn at random for
/// the differential tests and the fuzz target.
///
/// Drawn to hit what the merge finds hard: sources of every class
/// overlapping one another (and themselves), equal samples in several
/// sources, instants on boundaries, zero values, typed-in samples, sources
/// typed in for one kind only, invalid samples, travel between UTC offsets,
/// days around DST changes in the named zones, fixed `from`/`to` ranges that
/// cut samples, and explicit priority orders that name missing sources.
struct ReferenceCase: CustomStringConvertible {
  var samples: [ReferenceCount.Sample]
  var options: ReferenceCount.Options

  /// A source: its name and the device its samples carry.
  struct SourceShape {
    var name: String
    var model: String?
    var hardware: String?
    var deviceName: String?
    /// How often (in 100) a sample of it is typed in: 100 for the Health app.
    var typedInPercent: Int
  }

  static let sources: [SourceShape] = [
    SourceShape(name: "Anna’s Apple Watch", model: "Watch", hardware: "Watch6,1", typedInPercent: 3),
    SourceShape(name: "Anna’s iPhone", model: "iPhone", hardware: "iPhone14,2", typedInPercent: 3),
    SourceShape(name: "Health", typedInPercent: 100),
    SourceShape(name: "Pedometer++", typedInPercent: 0),
    SourceShape(name: "Old Apple Watch", typedInPercent: 0),
    SourceShape(name: "iPhone 6", hardware: "iPhone7,2", typedInPercent: 0),
    SourceShape(name: "Band", model: "Mi Band", hardware: "XMB5", typedInPercent: 0),
    SourceShape(name: "Ärzte App", deviceName: "iPhone", typedInPercent: 0),
    SourceShape(name: "Watch Sync", hardware: "Watch3,2", typedInPercent: 10),
    SourceShape(name: "Zepp iPhone", model: "Zepp", typedInPercent: 0),
  ]

  /// Instants near which samples are drawn (ms): ordinary days, DST changes in
  /// New York, London, Lord Howe (half an hour), Chatham (an hour, at a quarter to)
  /// and São Paulo (at midnight),
  /// a month end and a year end.
  static let eras: [Int64] = [
    1_774_828_800_000,  // 2026-03-30
    1_772_928_000_000,  // 2026-03-08 (New York springs forward)
    1_793_491_200_000,  // 2026-11-01 (New York falls back)
    1_774_742_400_000,  // 2026-03-29 (London springs forward)
    1_792_886_400_000,  // 2026-10-25 (London falls back)
    1_775_347_200_000,  // 2026-04-05 (Lord Howe falls back half an hour, Chatham an hour at 03:45)
    1_790_467_200_000,  // 2026-09-27 (Chatham springs forward at 02:45)
    1_791_072_000_000,  // 2026-10-04 (Lord Howe springs forward half an hour)
    1_541_289_600_000,  // 2018-11-04 (São Paulo skips midnight)
    1_793_404_800_000,  // 2026-10-31 (a month end)
    1_798_675_200_000,  // 2026-12-31 (a year and ISO week change)
  ]

  /// UTC offsets people record, whole minutes (the engine keeps minutes).
  static let offsets = [
    0, 3600, 7200, -18_000, -14_400, 28_800, 19_800, 20_700, 34_200, -34_200, 45_900, -12_600,
  ]

  static let zones = [
    "America/New_York", "Europe/London", "Asia/Shanghai", "Australia/Lord_Howe", "America/Sao_Paulo",
    "Asia/Kolkata", "Pacific/Chatham",
  ]

  /// Draws a case; `maximumSamples` bounds its size.
  static func draw<G: RandomNumberGenerator>(using rng: inout G, maximumSamples: Int = 40) -> ReferenceCase {
    func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }
    let era = eras[Int.random(in: 0..<eras.count, using: &rng)]
    let spanMs = Int64([6, 30, 72, 240][Int.random(in: 0..<4, using: &rng)]) * 3_600_000
    let lower = era - 36 * 3_600_000
    let sourceCount = Int.random(in: 1...5, using: &rng)
    let chosen = (0..<sourceCount).map { _ in sources[Int.random(in: 0..<sources.count, using: &rng)] }
    // Travellers change offset now and then; most logs keep one.
    let homeOffset = offsets[Int.random(in: 0..<offsets.count, using: &rng)]
    let travels = chance(30)
    let count = Int.random(in: 0...maximumSamples, using: &rng)
    var samples: [ReferenceCount.Sample] = []
    for _ in 0..<count {
      let shape = chosen[Int.random(in: 0..<chosen.count, using: &rng)]
      if !samples.isEmpty && chance(12) {
        // The same span again, from another source or the same one.
        var copy = samples[Int.random(in: 0..<samples.count, using: &rng)]
        copy.source = shape.name
        copy.model = shape.model
        copy.hardware = shape.hardware
        copy.deviceName = shape.deviceName
        copy.userEntered = chance(shape.typedInPercent)
        if chance(50) { copy.value = Double(Int.random(in: 0...3000, using: &rng)) }
        samples.append(copy)
        continue
      }
      // Mostly on a quarter-hour grid, so that boundaries meet; sometimes anywhere to the millisecond.
      let start: Int64
      if chance(70) {
        start = lower + Int64.random(in: 0...(spanMs / 900_000), using: &rng) * 900_000
      } else {
        start = lower + Int64.random(in: 0...spanMs, using: &rng)
      }
      let length: Int64
      switch Int.random(in: 0..<10, using: &rng) {
      case 0: length = 0
      case 1...5: length = Int64.random(in: 1...8, using: &rng) * 900_000
      case 6, 7: length = Int64.random(in: 1...600_000, using: &rng)
      default: length = Int64.random(in: 1...(30 * 3_600_000), using: &rng)
      }
      var value: Double
      switch Int.random(in: 0..<10, using: &rng) {
      case 0: value = 0
      case 1...6: value = Double(Int.random(in: 1...5000, using: &rng))
      default: value = Double.random(in: 0...2000, using: &rng)
      }
      let kind: ReferenceCount.Kind = chance(30) ? .distance : .steps
      if kind == .distance && chance(50) { value = (value * 0.7).rounded() / 1000 }
      var end = start + length
      // A few invalid samples (COUNTING.md, Inputs): they must count nowhere.
      switch Int.random(in: 0..<100, using: &rng) {
      case 0: end = start - 1000
      case 1: value = -value - 1
      case 2: value = .nan
      case 3: value = .infinity
      default: break
      }
      samples.append(
        ReferenceCount.Sample(
          kind: kind, startMs: start, endMs: end, value: value,
          offsetSeconds: travels && chance(30)
            ? offsets[Int.random(in: 0..<offsets.count, using: &rng)] : homeOffset,
          source: shape.name, model: shape.model, hardware: shape.hardware, deviceName: shape.deviceName,
          userEntered: chance(shape.typedInPercent)))
    }

    var options = ReferenceCount.Options()
    options.policy = ReferenceCount.Policy.allCases[Int.random(in: 0..<3, using: &rng)]
    if chance(30) {
      var names = chosen.map(\.name)
      if chance(50) { names.append(sources[Int.random(in: 0..<sources.count, using: &rng)].name) }
      names.shuffle(using: &rng)
      options.explicitOrder = Array(names.prefix(Int.random(in: 1...names.count, using: &rng)))
    }
    switch Int.random(in: 0..<20, using: &rng) {
    case 0...10: options.unit = .day
    case 11...14: options.unit = .hour
    case 15...16: options.unit = .week
    default: options.unit = .month
    }
    if chance(50) {
      options.zone = .named(TimeZone(identifier: zones[Int.random(in: 0..<zones.count, using: &rng)])!)
    }
    if chance(15) {
      // A fixed range around the era, cutting samples at its ends.
      var utc = Calendar(identifier: .gregorian)
      utc.timeZone = TimeZone(identifier: "UTC")!
      func day(_ offsetDays: Int) -> ReferenceCount.Day {
        let parts = utc.dateComponents(
          [.year, .month, .day],
          from: Date(timeIntervalSince1970: Double(era) / 1000 + Double(offsetDays) * 86_400))
        return ReferenceCount.Day(year: parts.year!, month: parts.month!, day: parts.day!)
      }
      let first = Int.random(in: -3...2, using: &rng)
      let last = first + Int.random(in: 0...4, using: &rng)
      if chance(80) { options.from = day(first) }
      if options.from == nil || chance(80) { options.to = day(last) }
    }
    // A day start in 40 % of the cases: 04:00, inside the spring gap (02:30), inside the autumn
    // repeat (01:30 in New York, 02:30 in Europe), late in the evening, or any minute. Drawn from
    // the samples' own bits, not from `rng`, so that every case drawn before day starts existed
    // is still drawn the same.
    var bits = samples.reduce(UInt64(samples.count)) {
      $0 &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(bitPattern: $1.startMs)
    }
    func next(_ bound: Int) -> Int {
      bits = (bits ^ (bits >> 31)) &* 0xBF58_476D_1CE4_E5B9
      bits ^= bits >> 29
      return Int(bits % UInt64(bound))
    }
    if next(100) < 40 {
      let starts = [(4, 0), (2, 30), (1, 30), (23, 45), (6, 0)]
      options.dayStart = next(100) < 70 ? starts[next(starts.count)] : (next(24), next(60))
    }
    return ReferenceCase(samples: samples, options: options)
  }

  var description: String {
    var lines = [
      "policy \(options.policy), unit \(options.unit), zone \(options.zone), order \(options.explicitOrder), "
        + "from \(options.from.map(\.description) ?? "-") to \(options.to.map(\.description) ?? "-"), "
        + "day start \(options.dayStart.hour):\(options.dayStart.minute)"
    ]
    for sample in samples {
      lines.append(
        "  \(sample.kind) \(sample.startMs)..<\(sample.endMs) (\(sample.endMs - sample.startMs) ms) \(sample.value) "
          + "offset \(sample.offsetSeconds) \(sample.source)\(sample.userEntered ? " typed-in" : "")")
    }
    return lines.joined(separator: "\n")
  }
}

/// Random numbers taken from bytes, for the fuzz target: each draw reads the
/// next eight bytes; once they run out, a SplitMix64 sequence follows (never
/// a constant, on which `random(in:)` could retry for ever), so that any
/// input is a case.
struct ByteGenerator: RandomNumberGenerator {
  private let bytes: [UInt8]
  private var position = 0
  private var state: UInt64 = 0x5EED

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  mutating func next() -> UInt64 {
    guard position < bytes.count else {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    var word: UInt64 = 0
    for _ in 0..<8 {
      word = word << 8 | UInt64(position < bytes.count ? bytes[position] : 0)
      position += 1
    }
    return word
  }
}
