/// xoshiro256** seeded through SplitMix64: the same seed gives the same bytes
/// on every platform and every run.
struct SeededRandom {
  private var state: (UInt64, UInt64, UInt64, UInt64)

  init(seed: UInt64) {
    var mix = seed
    func next() -> UInt64 {
      mix &+= 0x9E37_79B9_7F4A_7C15
      var z = mix
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    state = (next(), next(), next(), next())
  }

  mutating func next() -> UInt64 {
    let result = rotate(state.1 &* 5, 7) &* 9
    let shifted = state.1 << 17
    state.2 ^= state.0
    state.3 ^= state.1
    state.1 ^= state.2
    state.0 ^= state.3
    state.2 ^= shifted
    state.3 = rotate(state.3, 45)
    return result
  }

  private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
    (value << count) | (value >> (64 - count))
  }

  /// A value in `range` (small ranges; the modulo bias is irrelevant here).
  mutating func int(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
  }

  /// `true` with probability `percent`/100.
  mutating func chance(_ percent: Int) -> Bool {
    Int(next() % 100) < percent
  }

  /// A value in [0, 1).
  mutating func unit() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }
}
