/// One file in a zip archive, as its central directory describes it.
struct ZipEntry: Sendable, Hashable {
  /// The decoded name (`apple_health_export/export.xml`).
  var name: String
  /// The name's bytes as stored.
  var rawName: [UInt8]
  /// The general-purpose flags (bit 0 encrypted, bit 3 data descriptor, bit 11 UTF-8 name).
  var flags: UInt16
  /// 0 stored, 8 deflate.
  var method: UInt16
  /// The CRC-32 of the uncompressed contents.
  var crc32: UInt32
  /// Bytes of compressed data.
  var compressedSize: Int64
  /// Bytes once inflated.
  var uncompressedSize: Int64
  /// Where the entry's local header starts in the archive.
  var localHeaderOffset: Int64
  /// Where the central directory record of the entry starts (for errors).
  var centralDirectoryOffset: Int64

  /// Whether the entry is a directory (its name ends with `/`).
  var isDirectory: Bool { name.hasSuffix("/") }
  /// Whether the entry is encrypted (flag bit 0).
  var isEncrypted: Bool { flags & 0x0001 != 0 }
  /// Whether the name was flagged as UTF-8 (flag bit 11).
  var hasUTF8Flag: Bool { flags & 0x0800 != 0 }
  /// The last path component (`export.xml`).
  var baseName: String {
    let trimmed = name.hasSuffix("/") ? String(name.dropLast()) : name
    if let slash = trimmed.lastIndex(where: { $0 == "/" || $0 == "\\" }) {
      return String(trimmed[trimmed.index(after: slash)...])
    }
    return trimmed
  }
}
