/// One attribute of the current tag, as byte ranges in the scanner's buffer.
struct XMLAttribute {
  var nameStart: Int
  var nameEnd: Int
  /// Whether the name holds spaces (`Health Mate App Version="2.6.2"`): not
  /// XML, but what iOS 8 wrote for third-party metadata. Readers skip it.
  var nameHasSpaces = false
  /// The raw value, between the quotes, entities not yet decoded.
  var valueStart: Int
  var valueEnd: Int
}

/// How the bytes before one attribute's value were written in a start tag:
/// the white space before it, its name, `=` and the opening quote
/// (` sourceName="`), kept so that the next tag's attribute at the same
/// position can be recognised with one masked compare.
///
/// Only bytes that ``XMLScanner/lexAttribute(at:limit:checkingValues:)``
/// accepted become a template, so bytes equal to one are valid as well.
struct AttributeTemplate {
  /// The longest prefix kept: 32 bytes.
  static let width = 32
  /// How many positions are remembered (two bits each in ``AttributeLayout/ways``).
  static let slots = 32
  /// How many templates each position keeps (records of a few layouts alternate).
  static let ways = 4

  private var low = SIMD16<UInt8>(repeating: 0)
  private var high = SIMD16<UInt8>(repeating: 0)
  private var lowMask = SIMD16<UInt8>(repeating: 0)
  private var highMask = SIMD16<UInt8>(repeating: 0)
  /// How many bytes the prefix has; `Int.max` for a template that never matches.
  private(set) var length = Int.max
  /// Where the name lies, from the prefix's first byte.
  private(set) var nameStart = 0
  private(set) var nameEnd = 0
  private(set) var nameHasSpaces = false
  /// The opening quote (the prefix's last byte).
  private(set) var quote: UInt8 = 0
  /// The length of the value last read after this prefix: where its closing
  /// quote is looked for first.
  var valueLength = 0

  /// A template that matches nothing.
  init() {}

  /// The template of the `length` bytes at `bytes`, the name at `name` in
  /// them; one that matches nothing when they are longer than ``width``.
  init(_ bytes: UnsafePointer<UInt8>, length: Int, name: Range<Int>, nameHasSpaces: Bool) {
    guard length > 0, length <= Self.width else { return }
    withUnsafeMutableBytes(of: &low) {
      $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: min(length, 16)))
    }
    if length > 16 {
      withUnsafeMutableBytes(of: &high) {
        $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes + 16, count: length - 16))
      }
    }
    let lanes = SIMD16<UInt8>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    let all = SIMD16<UInt8>(repeating: 0xFF)
    lowMask.replace(with: all, where: lanes .< SIMD16(repeating: UInt8(min(length, 16))))
    highMask.replace(with: all, where: lanes &+ 16 .< SIMD16(repeating: UInt8(length)))
    self.length = length
    nameStart = name.lowerBound
    nameEnd = name.upperBound
    self.nameHasSpaces = nameHasSpaces
    quote = bytes[length - 1]
  }

  /// Whether the bytes at `bytes` start with the prefix; it reads ``width``
  /// bytes whatever the prefix's length.
  @inline(__always)
  func matches(_ bytes: UnsafePointer<UInt8>) -> Bool {
    let raw = UnsafeRawPointer(bytes)
    var difference = (raw.loadUnaligned(as: SIMD16<UInt8>.self) ^ low) & lowMask
    if length > 16 {
      difference |= (raw.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self) ^ high) & highMask
    }
    let words = unsafeBitCast(difference, to: SIMD2<UInt64>.self)
    return words[0] | words[1] == 0
  }
}

/// The name of a recent start tag (`Record`, `MetadataEntry`), kept so that
/// the next tag of that name is recognised with one masked compare instead
/// of a byte-by-byte walk; names of up to 16 bytes.
///
/// Only a name the scanner accepted becomes a ``TagName``, so bytes equal to
/// one are a valid name as well.
struct TagName {
  /// The longest name kept.
  static let width = 16

  private var bytes = SIMD16<UInt8>(repeating: 0)
  private var mask = SIMD16<UInt8>(repeating: 0)
  /// How many bytes the name has; 0 for one that matches nothing.
  private(set) var length = 0

  /// A name that matches nothing.
  init() {}

  /// The name of `length` bytes at `base`, or one that matches nothing when
  /// it is longer than ``width``.
  init(_ base: UnsafePointer<UInt8>, length: Int) {
    guard length > 0, length <= Self.width else { return }
    withUnsafeMutableBytes(of: &bytes) {
      $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: length))
    }
    mask = ByteScanning.firstLanes(length)
    self.length = length
  }

  /// Whether the bytes at `base` start with the name; it reads ``width`` bytes.
  @inline(__always)
  func matches(_ base: UnsafePointer<UInt8>) -> Bool {
    let difference = (UnsafeRawPointer(base).loadUnaligned(as: SIMD16<UInt8>.self) ^ bytes) & mask
    return ByteScanning.isZero(difference)
  }
}

/// The attribute names a kind of start tag is written with, in the order its
/// writer always uses, any of them possibly left out: Apple writes every
/// `<Record>` as `type`, `sourceName`, `sourceVersion`, `device`, `unit`,
/// `creationDate`, `startDate`, `endDate`, `value`.
///
/// ``XMLScanner/readAttributes(expecting:first:)`` reads a tag written so with
/// one compare per attribute. Each name remembers the lengths of the last
/// two values read after it, where the value's closing quote is looked for first.
struct ExpectedAttributes: ~Copyable {
  /// The most names kept (one bit each in what a read reports).
  static let maximumCount = 32

  /// One expected attribute: the bytes before its value.
  struct Name {
    /// ` name="`, in the first ``length`` lanes.
    var prefix: SIMD16<UInt8>
    /// 0xFF in the first ``length`` lanes.
    var mask: SIMD16<UInt8>
    /// The prefix's length: the name's and three more.
    var length: Int
    /// The lengths of the last two different values read after this name
    /// (records of two devices, or of steps and distance, alternate).
    var valueLength = 0
    var previousValueLength = 0

    /// Whether the sixteen bytes `bytes` start with the prefix.
    @inline(__always)
    func matches(_ bytes: SIMD16<UInt8>) -> Bool {
      ByteScanning.isZero((bytes ^ prefix) & mask)
    }

    /// Where the value that starts at `buffer[valueStart]` may end: a `"`
    /// where one of the last two values after this name ended, else the first
    /// `"` from `valueStart` on; `nil` when none comes before `stop`.
    ///
    /// A guess that lands on the next attribute's opening quote is told by
    /// the `=` before it. Any other wrong guess leaves a `"` inside the value:
    /// the caller's checks of the value must turn that away.
    @inline(__always)
    mutating func closingQuote(in buffer: UnsafeMutablePointer<UInt8>, from valueStart: Int, before stop: Int)
      -> Int?
    {
      @inline(__always) func isClose(_ close: Int) -> Bool {
        close < stop && buffer[close] == ASCII.quote && buffer[close &- 1] != ASCII.equals
      }
      let guess = valueStart &+ valueLength
      if isClose(guess) { return guess }
      let close: Int
      let other = valueStart &+ previousValueLength
      if isClose(other) {
        close = other
      } else {
        guard let found = ByteScanning.findShort(ASCII.quote, in: buffer, from: valueStart, to: stop) else {
          return nil
        }
        close = found
      }
      previousValueLength = valueLength
      valueLength = close &- valueStart
      return close
    }
  }

  /// How many names there are.
  let count: Int
  let names: UnsafeMutablePointer<Name>

  /// The attribute that starts at `buffer[i]` (its leading space) when it
  /// has one of the names from `slot` on: `slot` becomes that name's, and the
  /// value's bounds are returned, its end found as
  /// ``Name/closingQuote(in:from:before:)`` finds it; `nil` for any other.
  /// It reads sixteen bytes at `i`.
  @inline(__always)
  func attribute(at i: Int, in buffer: UnsafeMutablePointer<UInt8>, slot: inout Int, before stop: Int)
    -> (valueStart: Int, valueEnd: Int)?
  {
    let bytes = UnsafeRawPointer(buffer).loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
    while slot < count, !names[slot].matches(bytes) { slot &+= 1 }
    guard slot < count else { return nil }
    let name = names + slot
    let valueStart = i &+ name.pointee.length
    guard let valueEnd = name.pointee.closingQuote(in: buffer, from: valueStart, before: stop) else {
      return nil
    }
    return (valueStart, valueEnd)
  }

  /// The attribute names `names`, in order: each an ASCII XML name of at
  /// most 13 bytes, so that ` name="` fits one 16-byte compare.
  init(_ names: [StaticString]) {
    precondition(names.count <= Self.maximumCount, "at most \(Self.maximumCount) expected attributes")
    count = names.count
    self.names = .allocate(capacity: max(names.count, 1))
    for (index, name) in names.enumerated() {
      let length = name.utf8CodeUnitCount + 3
      precondition(length <= 16, "an expected attribute name has at most 13 bytes")
      var bytes = [UInt8](repeating: 0, count: 16)
      bytes[0] = ASCII.space
      for offset in 0..<name.utf8CodeUnitCount {
        let byte = name.utf8Start[offset]
        precondition(
          offset == 0 ? ByteScanning.isNameStart(byte) : ByteScanning.isNameByte(byte),
          "an expected attribute name is an XML name")
        precondition(byte < ASCII.firstNonASCII, "an expected attribute name is ASCII")
        bytes[1 + offset] = byte
      }
      bytes[length - 2] = ASCII.equals
      bytes[length - 1] = ASCII.quote
      let prefix = bytes.withUnsafeBytes { $0.loadUnaligned(as: SIMD16<UInt8>.self) }
      (self.names + index).initialize(
        to: Name(prefix: prefix, mask: ByteScanning.firstLanes(length), length: length))
    }
  }

  deinit { names.deallocate() }
}

/// Which templates a start tag's attributes matched, one way per position:
/// two start tags with equal layouts have the same attribute names in the
/// same order (templates are only replaced with a new ``epoch``).
struct AttributeLayout: Equatable {
  /// Two bits per attribute: the way of its position that it matched.
  var ways: UInt64
  /// How many attributes the tag has.
  var count: Int
  /// How many templates had been replaced when the tag was read.
  var epoch: UInt32
}

extension XMLScanner {
  /// The next attribute of the current start tag.
  ///
  /// - Parameter cursor: Where to continue; start with ``nameEnd``.
  /// - Returns: The attribute, or `nil` after the last one.
  /// - Throws: ``HealthExportError/malformedXML(file:line:column:detail:)``.
  @inline(__always)
  func nextAttribute(_ cursor: inout Int) throws -> XMLAttribute? {
    var i = cursor
    let limit = attributesEnd
    while i < limit, ByteScanning.isSpace(buffer[i]) { i += 1 }
    guard i < limit else {
      cursor = limit
      return nil
    }
    // The tag is whole and its closing `>` (or `/`) lies at `attributesEnd`;
    // finding the tag already ruled out a `<` inside it.
    guard let attribute = try lexAttribute(at: i, limit: limit + 1, checkingValues: false),
      attribute.valueEnd < limit
    else {
      throw attributeError(.endsInside, at: i, name: i..<i)
    }
    cursor = attribute.valueEnd + 1
    return attribute
  }

  /// The attribute at `cursor` when it is written exactly as `prefix` says
  /// (` name="`: one space, the name, `="`), as Apple's exports write every
  /// record's attributes, in one order; otherwise `nil`, with `cursor` left
  /// for ``nextAttribute(_:)``. What it accepts, ``nextAttribute(_:)`` reads
  /// the same way: it only skips the lexing of a spelling known in advance.
  @inline(__always)
  func expectedAttribute(_ prefix: StaticString, at cursor: inout Int) -> XMLAttribute? {
    let start = cursor
    let valueStart = start + prefix.utf8CodeUnitCount
    guard valueStart <= attributesEnd, ByteScanning.equal(buffer + start, prefix),
      let close = ByteScanning.findShort(ASCII.quote, in: buffer, from: valueStart, to: attributesEnd),
      close + 1 == attributesEnd || ByteScanning.isSpace(buffer[close + 1])
    else { return nil }
    cursor = close + 1
    return XMLAttribute(
      nameStart: start + 1, nameEnd: valueStart - 2, nameHasSpaces: false, valueStart: valueStart,
      valueEnd: close)
  }

  /// Reads the attribute that starts at `buffer[start]`: the one place where
  /// attribute syntax is checked, for tags still arriving
  /// (`lexAttributes(from:)`) and for ``nextAttribute(_:)`` alike.
  ///
  /// A name is an XML name; iOS 8 wrote metadata as attributes whose names
  /// hold spaces (`Health Mate App Version="2.6.2"`), which is read as one
  /// name with ``XMLAttribute/nameHasSpaces`` set. The value is quoted with
  /// `"` or `'`, and what follows it is white space or the tag's end.
  ///
  /// - Parameters:
  ///   - start: The first byte of the name (white space before it skipped).
  ///   - limit: The end of the bytes to look at.
  ///   - checkingValues: Whether to look for a `<` inside the value.
  /// - Returns: The attribute, or `nil` when `limit` comes before it ends.
  /// - Throws: ``HealthExportError/malformedXML(file:line:column:detail:)``.
  @inline(__always)
  func lexAttribute(at start: Int, limit: Int, checkingValues: Bool) throws -> XMLAttribute? {
    let base = buffer
    var i = start
    let first = base[i]
    guard ByteScanning.isNameStart(first) else { throw attributeError(.badStart, at: i, name: i..<i) }
    let nameStart = i
    i = ByteScanning.nameEnd(in: base, from: i + 1, to: limit)
    var nameEnd = i
    while i < limit, ByteScanning.isSpace(base[i]) { i += 1 }
    var nameHasSpaces = false
    while i < limit, base[i] != ASCII.equals, ByteScanning.isNameStart(base[i]) {
      nameHasSpaces = true
      i = ByteScanning.nameEnd(in: base, from: i + 1, to: limit)
      nameEnd = i
      while i < limit, ByteScanning.isSpace(base[i]) { i += 1 }
    }
    guard i < limit else { return nil }
    guard base[i] == ASCII.equals else {
      throw attributeError(.noValue, at: nameStart, name: nameStart..<nameEnd)
    }
    i += 1
    while i < limit, ByteScanning.isSpace(base[i]) { i += 1 }
    guard i < limit else { return nil }
    let quote = base[i]
    guard quote == ASCII.quote || quote == ASCII.apostrophe else {
      throw attributeError(.notQuoted, at: i, name: nameStart..<nameEnd)
    }
    guard let close = ByteScanning.findNear(quote, in: base, from: i + 1, to: limit) else {
      if checkingValues, let lt = ByteScanning.find(ASCII.lessThan, in: base, from: i + 1, to: limit) {
        throw attributeError(.lessThanInValue, at: lt, name: nameStart..<nameEnd)
      }
      return nil
    }
    if checkingValues, let lt = ByteScanning.find(ASCII.lessThan, in: base, from: i + 1, to: close) {
      throw attributeError(.lessThanInValue, at: lt, name: nameStart..<nameEnd)
    }
    let next = close + 1
    guard next < limit else { return nil }
    let after = base[next]
    guard ByteScanning.isSpace(after) || after == ASCII.greaterThan || after == ASCII.slash else {
      throw attributeError(.noSpaceBetween, at: next, name: nameStart..<nameEnd)
    }
    return XMLAttribute(
      nameStart: nameStart, nameEnd: nameEnd, nameHasSpaces: nameHasSpaces, valueStart: i + 1, valueEnd: close
    )
  }

  /// What is wrong with an attribute.
  enum AttributeProblem {
    case badStart, noValue, notQuoted, lessThanInValue, noSpaceBetween, endsInside
  }

  /// The error for an attribute that breaks the syntax (kept out of line: the
  /// lexer's fast path never builds a message).
  @inline(never)
  func attributeError(_ problem: AttributeProblem, at index: Int, name: Range<Int>) -> HealthExportError {
    let name = text(name.lowerBound, name.upperBound)
    switch problem {
    case .badStart:
      let byte = buffer[index]
      if byte == ASCII.lessThan { return malformed(at: index, "'<' inside a tag (is a tag unclosed?)") }
      return malformed(at: index, "unexpected character '\(Self.printable(byte))' in a tag")
    case .noValue: return malformed(at: index, "attribute '\(name)' has no value")
    case .notQuoted: return malformed(at: index, "the value of attribute '\(name)' is not quoted")
    case .lessThanInValue: return malformed(at: index, "'<' in the value of attribute '\(name)'")
    case .noSpaceBetween: return malformed(at: index, "no white space between attributes")
    case .endsInside: return malformed(at: index, "a tag ends inside an attribute")
    }
  }

  /// Whether the attribute's name is `name`.
  @inline(__always)
  func attributeNameIs(_ attribute: XMLAttribute, _ name: StaticString) -> Bool {
    attribute.nameEnd - attribute.nameStart == name.utf8CodeUnitCount
      && ByteScanning.equal(buffer + attribute.nameStart, name)
  }

  /// Throws when two of the current start tag's attributes (as lexed, see
  /// ``readAttributes()``) have one name: XML 1.0 (3.1) allows each name
  /// once in a tag, and a reader taking either one would guess.
  ///
  /// - Throws: ``HealthExportError/malformedXML(file:line:column:detail:)``
  ///   at the second one.
  func checkDistinctAttributeNames() throws {
    guard attributeCount > 1 else { return }
    for later in 1..<attributeCount {
      let b = attribute(later)
      let length = b.nameEnd - b.nameStart
      for earlier in 0..<later {
        let a = attribute(earlier)
        guard a.nameEnd - a.nameStart == length,
          ByteScanning.equal(buffer + a.nameStart, buffer + b.nameStart, count: length)
        else { continue }
        throw duplicateAttribute(b)
      }
    }
  }

  /// The error for `attribute`, whose name an earlier attribute of its tag has.
  func duplicateAttribute(_ attribute: XMLAttribute) -> HealthExportError {
    malformed(
      at: attribute.nameStart,
      "attribute '\(text(attribute.nameStart, attribute.nameEnd))' appears twice in one tag"
        + " (XML allows each name once)")
  }

  /// Whether the attribute's raw value is `value`.
  @inline(__always)
  func attributeValueIs(_ attribute: XMLAttribute, _ value: StaticString) -> Bool {
    attribute.valueEnd - attribute.valueStart == value.utf8CodeUnitCount
      && ByteScanning.equal(buffer + attribute.valueStart, value)
  }

  /// The raw bytes of the attribute's value (valid until the next token).
  @inline(__always)
  func rawValue(_ attribute: XMLAttribute) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(
      start: buffer + attribute.valueStart, count: attribute.valueEnd - attribute.valueStart)
  }

  /// The attribute's value with entity and character references decoded.
  ///
  /// - Throws: ``HealthExportError/malformedXML(file:line:column:detail:)``
  ///   for an unknown entity or an invalid character reference.
  func decodedValue(_ attribute: XMLAttribute) throws -> String {
    let raw = rawValue(attribute)
    guard
      ByteScanning.find(ASCII.ampersand, in: buffer, from: attribute.valueStart, to: attribute.valueEnd)
        != nil
    else {
      return String(decoding: raw, as: UTF8.self)
    }
    var decoded: [UInt8] = []
    decoded.reserveCapacity(raw.count)
    try decodeValue(attribute) { decoded.append(contentsOf: $0) }
    return String(decoding: decoded, as: UTF8.self)
  }

  /// Hands `append` the value of `attribute` with its entity references
  /// decoded, as ``decodedValue(_:)`` decodes them, in pieces: each run of
  /// bytes between references as it lies in the buffer, and each reference's
  /// character, with no `String` made for the predefined entities.
  ///
  /// - Throws: ``HealthExportError/malformedXML(file:line:column:detail:)``,
  ///   as ``decodedValue(_:)`` does.
  func decodeValue(_ attribute: XMLAttribute, _ append: (UnsafeBufferPointer<UInt8>) -> Void) throws {
    var i = attribute.valueStart
    let limit = attribute.valueEnd
    while i < limit {
      guard let ampersand = ByteScanning.find(ASCII.ampersand, in: buffer, from: i, to: limit) else {
        append(UnsafeBufferPointer(start: buffer + i, count: limit - i))
        return
      }
      if ampersand > i { append(UnsafeBufferPointer(start: buffer + i, count: ampersand - i)) }
      i = ampersand
      guard
        let semicolon = ByteScanning.find(ASCII.semicolon, in: buffer, from: i + 1, to: min(limit, i + 12))
      else {
        throw malformed(at: i, "'&' that does not start an entity reference")
      }
      let nameStart = i + 1
      let length = semicolon - nameStart
      if length >= 2, buffer[nameStart] == ASCII.numberSign {  // &#…;
        var scalarValue: UInt32 = 0
        var digits = 0
        var valid = true
        if buffer[nameStart + 1] | ASCII.lowercaseBit == ASCII.lowercaseX {  // &#x…;
          for j in (nameStart + 2)..<semicolon {
            let c = buffer[j]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default:
              valid = false
              digit = 0
            }
            scalarValue = scalarValue &* 16 &+ digit
            digits += 1
          }
        } else {
          for j in (nameStart + 1)..<semicolon {
            let c = buffer[j]
            guard c >= ASCII.zero, c <= ASCII.nine else {
              valid = false
              break
            }
            scalarValue = scalarValue &* 10 &+ UInt32(c - ASCII.zero)
            digits += 1
          }
        }
        guard valid, digits > 0, digits <= 8, scalarValue != 0, let scalar = Unicode.Scalar(scalarValue)
        else {
          throw malformed(at: i, "invalid character reference '\(text(i, semicolon + 1))'")
        }
        var character = String(scalar)
        character.withUTF8 { append($0) }
      } else {
        let replacement: UInt8
        switch length {
        case 2 where ByteScanning.matches(buffer, at: nameStart, limit: semicolon, "lt"):
          replacement = ASCII.lessThan
        case 2 where ByteScanning.matches(buffer, at: nameStart, limit: semicolon, "gt"):
          replacement = ASCII.greaterThan
        case 3 where ByteScanning.matches(buffer, at: nameStart, limit: semicolon, "amp"):
          replacement = ASCII.ampersand
        case 4 where ByteScanning.matches(buffer, at: nameStart, limit: semicolon, "quot"):
          replacement = ASCII.quote
        case 4 where ByteScanning.matches(buffer, at: nameStart, limit: semicolon, "apos"):
          replacement = ASCII.apostrophe
        default:
          throw malformed(
            at: i, "unknown entity '\(text(i, semicolon + 1))' (only the five predefined ones are read)")
        }
        withUnsafePointer(to: replacement) { append(UnsafeBufferPointer(start: $0, count: 1)) }
      }
      i = semicolon + 1
    }
  }
}
