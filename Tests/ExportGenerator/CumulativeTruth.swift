/// The generator's own answer for the cumulative types it writes besides
/// steps (active energy, flights): what the Health app's merge gives per
/// local day, computed straight from the records as written, by a naive
/// reading of COUNTING.md that shares nothing with StepKit's engine.
///
/// Every record of a day lies inside that local day, so the day's total is
/// the sum of what its records contribute: under the `health` policy,
/// typed-in records are dropped; sources are walked from the highest rank
/// (Watch, then iPhone, then other apps); a record contributes its value
/// times the part of its span not covered by the records of the sources
/// walked before it.
struct CumulativeTruth {
  /// One record as written, its times in UTC seconds.
  struct Entry {
    /// 2 Watch, 3 iPhone, 4 another app (COUNTING.md's classes); typed-in ones have `userEntered`.
    var sourceClass: Int
    var start: Int
    var end: Int
    /// The value in the type's canonical unit.
    var value: Double
    var userEntered: Bool
  }

  /// The day's records per type identifier.
  private var entries: [String: [Entry]] = [:]
  /// `date,type,value,raw_value` lines, one per day and type, in order.
  private(set) var lines: [String] = []

  mutating func add(_ type: String, _ entry: Entry) {
    entries[type, default: []].append(entry)
  }

  /// Ends local day `date`: works out each type's merged and raw total.
  mutating func finishDay(_ date: String) {
    for type in entries.keys.sorted() {
      let records = entries[type] ?? []
      let raw = records.reduce(0) { $0 + $1.value }
      let kept = records.filter { !$0.userEntered }
      var merged = 0.0
      var covered: [(Int, Int)] = []
      for sourceClass in Set(kept.map(\.sourceClass)).sorted() {
        let mine = kept.filter { $0.sourceClass == sourceClass }
        for record in mine {
          let length = record.end - record.start
          guard length > 0 else {
            if !covered.contains(where: { $0.0 <= record.start && record.start < $0.1 }) {
              merged += record.value
            }
            continue
          }
          var overlap = 0
          for (a, b) in Self.union(covered) {
            overlap += max(0, min(b, record.end) - max(a, record.start))
          }
          merged += record.value * Double(length - overlap) / Double(length)
        }
        covered += mine.filter { $0.end > $0.start }.map { ($0.start, $0.end) }
      }
      lines.append("\(date),\(type),\(merged),\(raw)")
    }
    entries = [:]
  }

  /// The intervals merged where they overlap or touch.
  private static func union(_ intervals: [(Int, Int)]) -> [(Int, Int)] {
    var result: [(Int, Int)] = []
    for (a, b) in intervals.sorted(by: { $0.0 < $1.0 }) {
      if let last = result.last, a <= last.1 {
        result[result.count - 1].1 = max(last.1, b)
      } else {
        result.append((a, b))
      }
    }
    return result
  }
}
