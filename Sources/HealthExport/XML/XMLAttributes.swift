#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

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
    let base = buffer
    while i < limit, ByteScanning.isSpace(base[i]) { i += 1 }
    guard i < limit else {
      cursor = limit
      return nil
    }
    let nameStart = i
    guard ByteScanning.isNameStart(base[i]) else {
      throw malformed(at: i, "unexpected character in a tag")
    }
    i += 1
    while i < limit {
      let c = base[i]
      if c == 61 || c <= 32 { break }
      i += 1
    }
    var nameEnd = i
    while i < limit, ByteScanning.isSpace(base[i]) { i += 1 }
    // iOS 8's metadata attributes: further words of one name, up to the `=`.
    var nameHasSpaces = false
    while i < limit, base[i] != 61, ByteScanning.isNameStart(base[i]) {
      nameHasSpaces = true
      while i < limit, base[i] != 61, base[i] > 32 { i += 1 }
      nameEnd = i
      while i < limit, ByteScanning.isSpace(base[i]) { i += 1 }
    }
    guard i < limit, base[i] == 61 else {
      throw malformed(at: nameStart, "attribute '\(text(nameStart, nameEnd))' has no value")
    }
    i += 1
    while i < limit, ByteScanning.isSpace(base[i]) { i += 1 }
    guard i < limit, base[i] == 34 || base[i] == 39 else {
      throw malformed(at: i, "the value of attribute '\(text(nameStart, nameEnd))' is not quoted")
    }
    let quote = base[i]
    guard let close = ByteScanning.find(quote, in: base, from: i + 1, to: limit) else {
      throw malformed(at: i, "the value of attribute '\(text(nameStart, nameEnd))' is not closed")
    }
    cursor = close + 1
    if cursor < limit, !ByteScanning.isSpace(base[cursor]) {
      throw malformed(at: cursor, "no white space between attributes")
    }
    return XMLAttribute(
      nameStart: nameStart, nameEnd: nameEnd, nameHasSpaces: nameHasSpaces, valueStart: i + 1, valueEnd: close
    )
  }

  /// Whether the attribute's name is `name`.
  @inline(__always)
  func attributeNameIs(_ attribute: XMLAttribute, _ name: StaticString) -> Bool {
    attribute.nameEnd - attribute.nameStart == name.utf8CodeUnitCount
      && memcmp(buffer + attribute.nameStart, name.utf8Start, name.utf8CodeUnitCount) == 0
  }

  /// Whether the attribute's raw value is `value`.
  @inline(__always)
  func attributeValueIs(_ attribute: XMLAttribute, _ value: StaticString) -> Bool {
    attribute.valueEnd - attribute.valueStart == value.utf8CodeUnitCount
      && memcmp(buffer + attribute.valueStart, value.utf8Start, value.utf8CodeUnitCount) == 0
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
    guard ByteScanning.find(38, in: buffer, from: attribute.valueStart, to: attribute.valueEnd) != nil else {
      return String(decoding: raw, as: UTF8.self)
    }
    var decoded: [UInt8] = []
    decoded.reserveCapacity(raw.count)
    var i = attribute.valueStart
    let limit = attribute.valueEnd
    while i < limit {
      let b = buffer[i]
      guard b == 38 else {
        decoded.append(b)
        i += 1
        continue
      }
      guard let semicolon = ByteScanning.find(59, in: buffer, from: i + 1, to: min(limit, i + 12)) else {
        throw malformed(at: i, "'&' that does not start an entity reference")
      }
      let nameStart = i + 1
      let length = semicolon - nameStart
      if length >= 2, buffer[nameStart] == 35 {  // &#…;
        var scalarValue: UInt32 = 0
        var digits = 0
        var valid = true
        if buffer[nameStart + 1] | 0x20 == 120 {  // &#x…;
          for j in (nameStart + 2)..<semicolon {
            let c = buffer[j]
            let digit: UInt32
            switch c {
            case 48...57: digit = UInt32(c - 48)
            case 97...102: digit = UInt32(c - 87)
            case 65...70: digit = UInt32(c - 55)
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
            guard c >= 48, c <= 57 else {
              valid = false
              break
            }
            scalarValue = scalarValue &* 10 &+ UInt32(c - 48)
            digits += 1
          }
        }
        guard valid, digits > 0, digits <= 8, scalarValue != 0, let scalar = Unicode.Scalar(scalarValue)
        else {
          throw malformed(at: i, "invalid character reference '\(text(i, semicolon + 1))'")
        }
        decoded.append(contentsOf: String(scalar).utf8)
      } else {
        let replacement: UInt8
        switch length {
        case 2 where buffer[nameStart] == 108 && buffer[nameStart + 1] == 116: replacement = 60  // lt
        case 2 where buffer[nameStart] == 103 && buffer[nameStart + 1] == 116: replacement = 62  // gt
        case 3 where ByteScanning.matches(buffer, at: nameStart, limit: semicolon, "amp"): replacement = 38
        case 4 where ByteScanning.matches(buffer, at: nameStart, limit: semicolon, "quot"): replacement = 34
        case 4 where ByteScanning.matches(buffer, at: nameStart, limit: semicolon, "apos"): replacement = 39
        default:
          throw malformed(
            at: i, "unknown entity '\(text(i, semicolon + 1))' (only the five predefined ones are read)")
        }
        decoded.append(replacement)
      }
      i = semicolon + 1
    }
    return String(decoding: decoded, as: UTF8.self)
  }
}
