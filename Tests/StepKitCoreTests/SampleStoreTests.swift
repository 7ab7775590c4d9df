import Foundation
import Testing

@_spi(ExportReading) @testable import StepKitCore

/// The compact sample store: every field comes back exactly, copies stay
/// independent, and export-like samples take a few bytes each.
@Suite("Sample store")
struct SampleStoreTests {
  /// One sample as appended, in engine units.
  struct Appended: Equatable {
    var kind: QuantityKind
    var startMs: Int64
    var endMs: Int64
    var valueBits: UInt64
    var offsetSeconds: Int
    var origin: UInt16
    var userEntered: Bool
  }

  /// A value of one of the shapes exports and apps produce, or any double.
  static func randomValue(kind: QuantityKind, using rng: inout SeededGenerator) -> Double {
    switch Int.random(in: 0..<10, using: &rng) {
    case 0: return Double(Int.random(in: 0...30_000, using: &rng))
    case 1:
      // A short decimal in km, converted as the reader converts it.
      let digits = Int.random(in: 1...7, using: &rng)
      let mantissa = Double(Int.random(in: 1...9_999_999, using: &rng))
      let factor = [1000, 1609.344, 0.3048, 0.9144, 0.01, 1][Int.random(in: 0..<6, using: &rng)]
      return mantissa / pow(10, Double(digits)) * factor
    case 2:
      // Any finite non-negative double: every bit pattern below +infinity.
      return Double(bitPattern: UInt64.random(in: 0..<0x7FF0_0000_0000_0000, using: &rng))
    case 3:
      return [0.0, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 9_007_199_254_740_994][
        Int.random(in: 0..<5, using: &rng)]
    case 4:
      // iOS 8's fractional step counts.
      return Double(Int.random(in: 0...500, using: &rng)) + Double.random(in: 0..<1, using: &rng)
    case 5: return Double(Int.random(in: 0...100_000, using: &rng)) / 100
    default:
      let mantissa = Double(Int.random(in: 1...99_999, using: &rng))
      return kind == .distance ? mantissa / 100_000 * 1000 : mantissa
    }
  }

  /// Samples of every awkward kind: times with milliseconds, starts that go
  /// backwards, durations from none to 136 years, offsets at the limits, and
  /// more than 300 origins.
  static func randomAppends(seed: UInt64, count: Int) -> (SampleLog, [Appended]) {
    var rng = SeededGenerator(seed: seed)
    var log = SampleLog()
    let origins = (0..<300).map { log.origin(source: "Source \($0 % 40)", device: Device(name: "\($0)"))! }
    var expected: [Appended] = []
    var t: Int64 = 1_600_000_000_000
    for _ in 0..<count {
      let kind: QuantityKind = Bool.random(using: &rng) ? .steps : .distance
      switch Int.random(in: 0..<8, using: &rng) {
      case 0: t += Int64.random(in: -86_400_000...0, using: &rng)  // out of order
      case 1: t += Int64.random(in: 0...999, using: &rng)  // milliseconds
      case 2: t = Int64.random(in: -4_000_000_000_000...4_000_000_000_000, using: &rng)
      case 3: t = [Int64.min / 2, Int64.max / 2, -1, 0][Int.random(in: 0..<4, using: &rng)]
      default: t += 1000 * Int64.random(in: 0...600, using: &rng)
      }
      let duration: Int64
      switch Int.random(in: 0..<6, using: &rng) {
      case 0: duration = 0
      case 1: duration = Int64.random(in: 0...Int64(UInt32.max) * 1000, using: &rng)
      case 2: duration = Int64.random(in: 1...10_000, using: &rng)
      default: duration = 1000 * Int64.random(in: 1...900, using: &rng)
      }
      let offsetMinutes = Bool.random(using: &rng) ? 60 : Int.random(in: -2047...2047, using: &rng)
      let origin = origins[Int.random(in: 0..<(Bool.random(using: &rng) ? 2 : 300), using: &rng)]
      let value = randomValue(kind: kind, using: &rng)
      let userEntered = Int.random(in: 0..<5, using: &rng) == 0
      let stored = log.append(
        kind: kind, startMs: t, endMs: t + duration, value: value, utcOffsetSeconds: offsetMinutes * 60,
        origin: origin, userEntered: userEntered)
      #expect(stored)
      expected.append(
        Appended(
          kind: kind, startMs: t, endMs: t + duration, valueBits: value.bitPattern,
          offsetSeconds: offsetMinutes * 60, origin: origin.rawValue, userEntered: userEntered))
    }
    return (log, expected)
  }

  static func appended(_ entry: SampleLog.Entry) -> Appended {
    Appended(
      kind: entry.kind, startMs: entry.startMs, endMs: entry.endMs, valueBits: entry.value.bitPattern,
      offsetSeconds: entry.utcOffsetSeconds, origin: entry.origin.rawValue, userEntered: entry.isUserEntered)
  }

  @Test("Every field comes back exactly, in order and by index", arguments: [1, 2, 3, 4, 5] as [UInt64])
  func roundTrip(seed: UInt64) {
    let (log, expected) = Self.randomAppends(seed: seed, count: 3000)
    #expect(log.count == expected.count)
    var read: [Appended] = []
    log.forEachEntry { index, entry in
      #expect(index == read.count)
      read.append(Self.appended(entry))
    }
    #expect(read == expected)
    for index in [0, 1, 63, 64, 127, 128, 129, 255, 256, 257, 1000, expected.count - 1] {
      let sample = log.sample(at: index)
      #expect(sample.start == Date(epochMilliseconds: expected[index].startMs))
      #expect(sample.end == Date(epochMilliseconds: expected[index].endMs))
      #expect(sample.value.bitPattern == expected[index].valueBits)
      #expect(sample.utcOffsetSeconds == expected[index].offsetSeconds)
      #expect(log.originOfSample(at: index).rawValue == expected[index].origin)
    }
    let all = log.samples
    #expect(all.count == expected.count)
    #expect(zip(all, expected).allSatisfy { $0.value.bitPattern == $1.valueBits && $0.kind == $1.kind })
  }

  @Test("Values of every shape round-trip bit for bit, one sample at a time")
  func valuesRoundTrip() {
    var rng = SeededGenerator(seed: 99)
    var log = SampleLog()
    let origin = log.origin(source: "A", device: nil)!
    var values: [Double] = []
    for index in 0..<20_000 {
      let kind: QuantityKind = index % 2 == 0 ? .steps : .distance
      let value = Self.randomValue(kind: kind, using: &rng)
      values.append(value)
      log.append(
        kind: kind, startMs: Int64(index) * 1000, endMs: Int64(index) * 1000, value: value,
        utcOffsetSeconds: 0, origin: origin, userEntered: false)
    }
    var read: [UInt64] = []
    log.forEachEntry { _, entry in read.append(entry.value.bitPattern) }
    #expect(read == values.map(\.bitPattern))
  }

  @Test("A copy of a log keeps its own samples when either appends")
  func copyOnWrite() {
    let (original, expected) = Self.randomAppends(seed: 11, count: 100)
    var a = original
    var b = original
    let origin = a.origin(source: "Source 0", device: Device(name: "0"))!
    a.append(
      kind: .steps, startMs: 5000, endMs: 6000, value: 1, utcOffsetSeconds: 0, origin: origin,
      userEntered: false)
    b.append(
      kind: .distance, startMs: 7000, endMs: 9000, value: 2.5, utcOffsetSeconds: 3600, origin: origin,
      userEntered: true)
    #expect(original.count == 100)
    var read: [Appended] = []
    original.forEachEntry { _, entry in read.append(Self.appended(entry)) }
    #expect(read == expected)
    #expect(a.sample(at: 100).value == 1)
    #expect(a.sample(at: 100).kind == .steps)
    #expect(b.sample(at: 100).value == 2.5)
    #expect(b.sample(at: 100).utcOffsetSeconds == 3600)
    #expect(a.sample(at: 99) == b.sample(at: 99))
  }

  @Test("Offsets are kept in whole minutes, as the rejection rule bounds them")
  func offsetsInMinutes() {
    var log = SampleLog()
    let origin = log.origin(source: "A", device: nil)!
    for seconds in [0, 59, -59, 19_800, -34_200, 2047 * 60, -2047 * 60, 3661] {
      log.append(
        kind: .steps, startMs: 0, endMs: 0, value: 1, utcOffsetSeconds: seconds, origin: origin,
        userEntered: false)
    }
    var offsets: [Int] = []
    log.forEachEntry { _, entry in offsets.append(entry.utcOffsetSeconds) }
    #expect(offsets == [0, 0, 0, 19_800, -34_200, 2047 * 60, -2047 * 60, 3660])
  }

  @Test("Decimals read at the scale of the one before come back bit for bit, at its size")
  func previousScale() {
    // Each as the reader makes it: digits / 10^k * metres per unit. After the first of a unit,
    // fewer digits fit the previous scale; more digits, another unit, or a value too large for
    // the previous scale's mantissa do not.
    let texts: [(digits: Double, k: Double, factor: Double)] = [
      (25974, 5, 1000), (1, 1, 1000), (12345, 5, 1000), (999_999, 5, 1000), (1_234_567, 7, 1000),
      (5, 2, 1609.344), (123, 3, 1609.344), (75, 1, 1), (7, 1, 1), (33, 2, 0.3048),
      (8_999_999_999_999, 5, 1000), (9_007_199_254_740, 3, 1), (1, 9, 1000), (3, 1, 0.01),
    ]
    var log = SampleLog()
    let origin = log.origin(source: "A", device: nil)!
    var values: [Double] = []
    for (index, text) in (texts + texts.reversed()).enumerated() {
      let value = text.digits / pow(10, text.k) * text.factor
      values.append(value)
      log.append(
        kind: .distance, startMs: Int64(index) * 1000, endMs: Int64(index) * 1000 + 1000, value: value,
        utcOffsetSeconds: 0, origin: origin, userEntered: false)
    }
    var read: [UInt64] = []
    log.forEachEntry { _, entry in read.append(entry.value.bitPattern) }
    #expect(read == values.map(\.bitPattern))
    // A run in one unit with no more digits than the first: a header, a start and a mantissa each.
    var run = SampleLog()
    let runOrigin = run.origin(source: "A", device: nil)!
    for (index, digits) in [25974.0, 1, 12345, 401, 99999].enumerated() {
      run.append(
        kind: .distance, startMs: Int64(index) * 1000, endMs: Int64(index) * 1000 + 1000,
        value: digits / 100_000 * 1000, utcOffsetSeconds: 0, origin: runOrigin, userEntered: false)
    }
    // The first sample: header, start, duration, scale byte and a 3-byte mantissa (7 bytes); the
    // others: header, start and their mantissas of 1, 2, 2 and 3 bytes, with no scale byte (16).
    #expect(run.storedSampleBytes - MemoryLayout<SampleStore.BlockInfo>.stride == 7 + 16)
  }

  @Test("Export-shaped samples take under 6 bytes each")
  func compactness() {
    // Steps and distance pairs from a Watch and an iPhone, whole seconds,
    // distances in km with five decimals, as dense exports have them.
    var rng = SeededGenerator(seed: 5)
    var log = SampleLog()
    let watch = log.origin(source: "Watch", device: Fixture.watch)!
    let phone = log.origin(source: "iPhone", device: Fixture.phone)!
    var t: Int64 = 1_609_459_200_000
    for index in 0..<100_000 {
      let length = 1000 * Int64.random(in: 10...300, using: &rng)
      let steps = Double(Int.random(in: 1...400, using: &rng))
      let origin = index % 40 < 20 ? watch : phone
      let km = Double(Int(steps * 0.75 + 0.5)) / 100_000
      log.append(
        kind: .steps, startMs: t, endMs: t + length, value: steps, utcOffsetSeconds: 3600, origin: origin,
        userEntered: false)
      log.append(
        kind: .distance, startMs: t, endMs: t + length, value: km * 1000, utcOffsetSeconds: 3600,
        origin: origin, userEntered: false)
      t += length + 1000 * Int64.random(in: 0...120, using: &rng)
    }
    let perSample = Double(log.storedSampleBytes) / Double(log.count)
    #expect(perSample < 6, "\(perSample) bytes per sample")
  }
  @Test("A block's record keeps its first sample and highest origin apart, to their extremes")
  func blockRecordFields() {
    for first in [0, 1, 128, Int(UInt32.max) + 1, SampleStore.BlockInfo.mostSamples - 1] {
      for origin in [0, 1, 0x7FFF, UInt16.max] as [UInt16] {
        var info = SampleStore.BlockInfo(
          chunk: 7, offset: 9, first: first, minStartMs: .min, maxStartMs: -1, maxEndMs: .max,
          maxOrigin: origin)
        #expect(info.first == first && info.maxOrigin == origin)
        #expect(info.chunk == 7 && info.offset == 9)
        #expect(info.minStartMs == .min && info.maxStartMs == -1 && info.maxEndMs == .max)
        info.first = 42
        #expect(info.first == 42 && info.maxOrigin == origin)
        info.maxOrigin = 3
        #expect(info.first == 42 && info.maxOrigin == 3)
        info.first = first
        #expect(info.first == first && info.maxOrigin == 3)
      }
    }
    #expect(MemoryLayout<SampleStore.BlockInfo>.stride == 40)
  }

  @Test("The block table reads back every record across its pages")
  func blockPages() {
    var pages = SampleStore.BlockPages()
    let total = 3 * SampleStore.BlockPages.pageSize + 5
    for block in 0..<total {
      pages.append(
        SampleStore.BlockInfo(
          chunk: UInt32(block / 100), offset: UInt32(block % 100), first: block * 256,
          minStartMs: Int64(block) * 60_000, maxStartMs: Int64(block) * 60_000 + 1,
          maxEndMs: Int64(block) * 60_000 + 2, maxOrigin: UInt16(block % 65_536)))
      #expect(pages.count == block + 1)
    }
    for block in 0..<total {
      let info = pages[block]
      #expect(info.chunk == UInt32(block / 100) && info.offset == UInt32(block % 100))
      #expect(info.first == block * 256 && info.maxOrigin == UInt16(block % 65_536))
      #expect(info.minStartMs == Int64(block) * 60_000 && info.maxEndMs == Int64(block) * 60_000 + 2)
    }
    // A store of more blocks than a page: every sample comes back by index, in its block.
    var log = SampleLog()
    let origin = log.origin(source: "A", device: nil)!
    let samples = (SampleStore.BlockPages.pageSize + 3) * SampleStore.blockCapacity
    for i in 0..<samples {
      log.append(
        kind: .steps, startMs: Int64(i) * 1000, endMs: Int64(i) * 1000 + 500, value: Double(i % 97),
        utcOffsetSeconds: 0, origin: origin, userEntered: false)
    }
    #expect(log.store.blockCount > SampleStore.BlockPages.pageSize)
    var seen = 0
    var wrong = 0
    log.store.decodeAll { index, sample in
      if index != seen || sample.startMs != Int64(seen) * 1000 || sample.value != Double(seen % 97) {
        wrong += 1
      }
      seen += 1
    }
    #expect(seen == samples && wrong == 0)
    for index in [0, 255, 256, samples / 2, samples - 257, samples - 1] {
      let block = log.store.block(holding: index)
      #expect(
        log.store.firstSample(ofBlock: block) <= index && index < log.store.firstSample(ofBlock: block + 1))
    }
  }

  @Test("Start counts are exact whatever order the spans come in, and after samples are dropped")
  func startCountsInAnyOrder() {
    let span = Int64(1) << SampleStore.startSpanShift
    // Spans in order, one again, an earlier one, and far back; each origin alternately 0 and 1.
    let starts: [Int64] = [
      0, 1, span, span + 5, 3 * span, span, 0, 3 * span, 4 * span, -7 * span, 4 * span, 9 * span,
      9 * span + 1, 0,
    ]
    @Sendable func sample(_ index: Int, _ start: Int64) -> StoredSample {
      StoredSample(
        startMs: start, endMs: start + 1000, value: 1, origin: UInt16(index % 2), offsetMinutes: 0,
        kind: .steps,
        isUserEntered: false)
    }
    func expectCounts(
      _ store: SampleStore, _ expected: [Int64: Int],
      sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
      #expect(store.startCounts == expected, sourceLocation: sourceLocation)
      let ordered = expected.sorted { $0.key < $1.key }
      #expect(store.orderedStartCounts.map(\.span) == ordered.map(\.key), sourceLocation: sourceLocation)
      #expect(store.orderedStartCounts.map(\.count) == ordered.map(\.value), sourceLocation: sourceLocation)
    }
    var store = SampleStore()
    var expected: [Int64: Int] = [:]
    for (index, start) in starts.enumerated() {
      store.append(sample(index, start))
      expected[start >> SampleStore.startSpanShift, default: 0] += 1
      expectCounts(store, expected)
    }
    // Joined to a store with a sample of its own, origin 1 given no number: its samples are taken
    // back from the counts, wherever they were kept.
    var joined = SampleStore()
    joined.append(sample(0, 2 * span))
    var joinedExpected: [Int64: Int] = [2: 1]
    for (index, start) in starts.enumerated() where index % 2 == 0 {
      joinedExpected[start >> SampleStore.startSpanShift, default: 0] += 1
    }
    let dropped = joined.append(contentsOf: store, keptOrigins: 0) { $0 == 1 ? nil : $0 }
    #expect(dropped == starts.count / 2)
    expectCounts(joined, joinedExpected)
    // Appending on after the join counts on.
    joined.append(sample(0, 10 * span))
    joinedExpected[10, default: 0] += 1
    expectCounts(joined, joinedExpected)
  }
  @Test("A sample the caller found valid is stored as append(kind:…) stores it")
  func appendValidStoresAlike() {
    var checked = SampleLog()
    var trusted = SampleLog()
    var rng = SeededGenerator(seed: 11)
    for index in 0..<400 {
      let source = index % 3 == 0 ? "Watch" : "Phone"
      guard let checkedOrigin = checked.origin(source: source, device: nil),
        let trustedOrigin = trusted.origin(source: source, device: nil)
      else { return }
      let kind: QuantityKind = index % 2 == 0 ? .steps : .distance
      let start = Int64(index) * 60_000 + Int64.random(in: 0...999, using: &rng)
      let end = start + Int64.random(in: 0...600_000, using: &rng)
      let value = Self.randomValue(kind: kind, using: &rng).magnitude
      let offset = 60 * Int.random(in: -720...840, using: &rng)
      let userEntered = index % 7 == 0
      guard SampleLog.rejection(startMs: start, endMs: end, value: value, utcOffsetSeconds: offset) == nil
      else {
        continue
      }
      checked.append(
        kind: kind, startMs: start, endMs: end, value: value, utcOffsetSeconds: offset, origin: checkedOrigin,
        userEntered: userEntered)
      trusted.appendValid(
        kind: kind, startMs: start, endMs: end, value: value, utcOffsetSeconds: offset, origin: trustedOrigin,
        userEntered: userEntered)
    }
    #expect(trusted.count > 300)
    #expect(trusted.samples == checked.samples)
    #expect(trusted.originSampleCounts == checked.originSampleCounts)
    #expect(trusted.store.startCounts == checked.store.startCounts)
  }
}
