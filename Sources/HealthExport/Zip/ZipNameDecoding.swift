import Foundation

/// Turns a zip entry's stored name bytes into a `String`.
///
/// Names flagged UTF-8 (bit 11) are UTF-8. Unflagged names are UTF-8 too when
/// they are valid UTF-8, because many tools write UTF-8 without setting the flag;
/// otherwise they are IBM code page 437, the zip format's original encoding.
enum ZipNameDecoding {
  /// Decodes `bytes`; the UTF-8 flag makes no difference, since names that
  /// are not valid UTF-8 can only be read as code page 437 anyway.
  static func decode(_ bytes: some Collection<UInt8>) -> String {
    if let text = String(bytes: bytes, encoding: .utf8) { return text }
    return decodeCP437(bytes)
  }

  static func decodeCP437(_ bytes: some Collection<UInt8>) -> String {
    var text = ""
    text.unicodeScalars.reserveCapacity(bytes.count)
    for byte in bytes {
      if byte < 0x80 {
        text.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        text.unicodeScalars.append(cp437High[Int(byte - 0x80)])
      }
    }
    return text
  }

  /// Code page 437, bytes 0x80...0xFF.
  private static let cp437High: [Unicode.Scalar] = Array(
    "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{00A0}"
      .unicodeScalars)
}
