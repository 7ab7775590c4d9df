import Foundation

/// Two adjacent fields of a records row (type and unit; source and version)
/// as the last written row wrote them, written again without escaping or
/// checking while rows repeat them byte for byte, as nearly every row of one
/// type does: in CSV `type,unit,`, in JSON `"type":"…","unit":"…",`.
///
/// Only the rows written pass through ``write(_:_:to:)``: a row that `--from`
/// or `--to` leaves out is made but changes nothing here, so a field is
/// always compared with the one written last.
struct RepeatedFields {
  private let format: RecordsOutput.Format
  /// The members' names in JSON (CSV names its columns once, in the header).
  private let names: (first: StaticString, second: StaticString)
  private var first: [UInt8]?
  private var second: [UInt8]?
  private var text: [UInt8] = []
  private var replaced = 0
  private var isSet = false

  /// Two fields written in `format`, named `first` and `second` in JSON.
  init(_ format: RecordsOutput.Format, names first: StaticString, _ second: StaticString) {
    self.format = format
    names = (first, second)
  }

  /// Writes `first` and `second` to `out`: as CSV fields, each followed by a
  /// `,` (nothing for `nil`), as ``RecordText/csvField(_:)`` writes them; or
  /// as JSON members, each followed by a `,`, as
  /// ``RecordText/jsonStringMember(_:_:)`` writes them.
  ///
  /// - Returns: How many bytes were replaced by U+FFFD.
  @inline(__always)
  mutating func write(
    _ first: UnsafeBufferPointer<UInt8>?, _ second: UnsafeBufferPointer<UInt8>?, to out: inout RecordText
  ) -> Int {
    if isSet, RecordFields.same(first, self.first), RecordFields.same(second, self.second) {
      text.withUnsafeBufferPointer { out.append($0) }
      return replaced
    }
    return writeAnew(first, second, to: &out)
  }

  /// Writes `first` and `second` as ``write(_:_:to:)`` does, escaping them,
  /// and keeps them and their text; out of line, as it runs only where rows change.
  @inline(never)
  private mutating func writeAnew(
    _ first: UnsafeBufferPointer<UInt8>?, _ second: UnsafeBufferPointer<UInt8>?, to out: inout RecordText
  ) -> Int {
    let start = out.count
    switch format {
    case .csv:
      replaced = first.map { out.csvField($0) } ?? 0
      out.ascii(44)
      replaced += second.map { out.csvField($0) } ?? 0
      out.ascii(44)
    case .json:
      replaced = out.jsonStringMember(names.first, first)
      replaced += out.jsonStringMember(names.second, second)
    }
    text.removeAll(keepingCapacity: true)
    text.append(contentsOf: UnsafeBufferPointer(start: out.bytes + start, count: out.count - start))
    self.first = first.map { Array($0) }
    self.second = second.map { Array($0) }
    isSet = true
    return replaced
  }
}
