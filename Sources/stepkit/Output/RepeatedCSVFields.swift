import Foundation

/// Two adjacent CSV fields of a records row (`type,unit,`;
/// `source,source_version,`) as the last row wrote them, written again
/// without quoting or checking while rows repeat them byte for byte, as
/// nearly every row of one type does.
struct RepeatedCSVFields {
  private var first: [UInt8]?
  private var second: [UInt8]?
  private var text: [UInt8] = []
  private var replaced = 0
  private var isSet = false

  /// Writes `first` and `second` as CSV fields to `out`, each followed by a
  /// `,` (nothing for `nil`), as ``RecordText/csvField(_:)`` writes them;
  /// returns how many bytes were replaced by U+FFFD.
  mutating func write(
    _ first: UnsafeBufferPointer<UInt8>?, _ second: UnsafeBufferPointer<UInt8>?, to out: inout RecordText
  ) -> Int {
    if isSet, RecordFields.same(first, self.first), RecordFields.same(second, self.second) {
      text.withUnsafeBufferPointer { out.append($0) }
      return replaced
    }
    let start = out.count
    replaced = first.map { out.csvField($0) } ?? 0
    out.ascii(44)
    replaced += second.map { out.csvField($0) } ?? 0
    out.ascii(44)
    text.removeAll(keepingCapacity: true)
    text.append(contentsOf: UnsafeBufferPointer(start: out.bytes + start, count: out.count - start))
    self.first = first.map { Array($0) }
    self.second = second.map { Array($0) }
    isSet = true
    return replaced
  }
}
