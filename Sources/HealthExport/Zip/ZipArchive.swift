import Foundation

/// A zip archive's central directory, read from a random-access byte source.
///
/// Reads the end-of-central-directory record (found behind an archive comment
/// of up to 64 KiB), the ZIP64 locator and record when present, and every
/// central directory header with its ZIP64 extra field. Nothing is inflated
/// here; ``ZipEntryReader`` streams an entry's contents.
struct ZipArchive: Sendable {
  /// The archive's bytes.
  let source: any RandomAccessByteSource
  /// The entries, in central directory order.
  let entries: [ZipEntry]

  /// The archive's name for errors.
  var displayName: String { source.displayName }

  /// Reads the central directory of `source`.
  ///
  /// - Throws: ``HealthExportError/notAZip(path:)`` without an end-of-central-
  ///   directory record; ``HealthExportError/corruptZip(path:detail:byteOffset:)``
  ///   when a structure is damaged or truncated.
  init(source: any RandomAccessByteSource) throws {
    self.source = source
    let end = try Self.findEndOfCentralDirectory(in: source)
    entries = try Self.readCentralDirectory(in: source, end: end)
  }

  /// `export.zip:apple_health_export/export.xml`.
  func displayName(of entry: ZipEntry) -> String {
    "\(displayName):\(entry.name)"
  }

  /// The offset of `entry`'s compressed data, read from its local header
  /// (whose name and extra lengths may differ from the central directory's).
  ///
  /// - Throws: ``HealthExportError/corruptZip(path:detail:byteOffset:)`` when the
  ///   local header is missing or the data runs past the end of the archive.
  func dataOffset(of entry: ZipEntry) throws -> Int64 {
    let offset = entry.localHeaderOffset
    let header = try source.readBytes(at: offset, count: 30, what: "local header of \(entry.name)")
    var reader = LittleEndianReader(header)
    guard reader.u32() == Signature.localHeader else {
      throw HealthExportError.corruptZip(
        path: displayName, detail: "no local header for \(entry.name)", byteOffset: offset)
    }
    _ = reader.skip(22)
    guard let nameLength = reader.u16(), let extraLength = reader.u16() else {
      throw HealthExportError.corruptZip(
        path: displayName, detail: "local header of \(entry.name) is truncated", byteOffset: offset)
    }
    let dataOffset = offset + 30 + Int64(nameLength) + Int64(extraLength)
    guard dataOffset <= source.byteCount, entry.compressedSize <= source.byteCount - dataOffset else {
      throw HealthExportError.corruptZip(
        path: displayName, detail: "data of \(entry.name) runs past the end of the file",
        byteOffset: dataOffset)
    }
    return dataOffset
  }

  // MARK: - Records

  enum Signature {
    static let localHeader: UInt32 = 0x0403_4b50
    static let centralHeader: UInt32 = 0x0201_4b50
    static let endOfCentralDirectory: UInt32 = 0x0605_4b50
    static let zip64EndOfCentralDirectory: UInt32 = 0x0606_4b50
    static let zip64Locator: UInt32 = 0x0706_4b50
  }

  // A list of stored fields, alike in shape only with other types' lists of as many fields:
  // nothing in it to share.

  /// Where the central directory lies, from the end records.
  struct CentralDirectoryLocation {
    var entryCount: UInt64
    var size: Int64
    var offset: Int64
    /// Where the end-of-central-directory record (or the ZIP64 one) starts.
    var endRecordOffset: Int64
  }

  private static let endRecordSize = 22
  private static let maximumCommentLength = 0xFFFF

  private static func findEndOfCentralDirectory(
    in source: any RandomAccessByteSource
  ) throws -> CentralDirectoryLocation {
    let fileSize = source.byteCount
    guard fileSize >= Int64(endRecordSize) else {
      if fileSize >= 4,
        try source.readBytes(at: 0, count: 4, what: "file signature") == [0x50, 0x4B, 0x03, 0x04]
      {
        throw HealthExportError.incompleteZip(path: source.displayName, byteCount: fileSize)
      }
      throw HealthExportError.notAZip(path: source.displayName)
    }
    let tailLength = Int(min(fileSize, Int64(endRecordSize + maximumCommentLength)))
    let tailStart = fileSize - Int64(tailLength)
    let tail = try source.readBytes(at: tailStart, count: tailLength, what: "end of central directory")

    // Scan backwards; prefer a record whose comment length reaches exactly the
    // end of the file, otherwise take the last plausible one (trailing junk).
    var fallback: Int?
    var found: Int?
    var index = tail.count - endRecordSize
    while index >= 0 {
      if tail[index] == 0x50, tail[index + 1] == 0x4b, tail[index + 2] == 0x05, tail[index + 3] == 0x06 {
        let commentLength = Int(tail[index + 20]) | Int(tail[index + 21]) << 8
        if index + endRecordSize + commentLength == tail.count {
          found = index
          break
        }
        if fallback == nil, index + endRecordSize + commentLength <= tail.count { fallback = index }
      }
      index -= 1
    }
    guard let recordIndex = found ?? fallback else {
      // A local file header at the start: a zip whose end never arrived.
      let head = try source.readBytes(at: 0, count: 4, what: "file signature")
      if head == [0x50, 0x4B, 0x03, 0x04] {
        throw HealthExportError.incompleteZip(path: source.displayName, byteCount: fileSize)
      }
      throw HealthExportError.notAZip(path: source.displayName)
    }
    let recordOffset = tailStart + Int64(recordIndex)

    var reader = LittleEndianReader(tail, position: recordIndex + 4)
    guard reader.skip(6),
      let totalEntries = reader.u16(), let directorySize = reader.u32(), let directoryOffset = reader.u32()
    else {
      throw HealthExportError.corruptZip(
        path: source.displayName, detail: "truncated end of central directory", byteOffset: recordOffset)
    }
    var location = CentralDirectoryLocation(
      entryCount: UInt64(totalEntries), size: Int64(directorySize), offset: Int64(directoryOffset),
      endRecordOffset: recordOffset)

    // ZIP64: a locator sits right before the classic record.
    let locatorOffset = recordOffset - 20
    if locatorOffset >= 0 {
      let locator = try source.readBytes(at: locatorOffset, count: 20, what: "ZIP64 locator")
      var locatorReader = LittleEndianReader(locator)
      if locatorReader.u32() == Signature.zip64Locator {
        guard locatorReader.skip(4), let recordPosition = locatorReader.u64(),
          recordPosition < UInt64(locatorOffset)
        else {
          throw HealthExportError.corruptZip(
            path: source.displayName, detail: "ZIP64 locator points past itself", byteOffset: locatorOffset)
        }
        location = try readZip64EndRecord(in: source, at: Int64(recordPosition))
      }
    }
    return location
  }

  private static func readZip64EndRecord(
    in source: any RandomAccessByteSource, at offset: Int64
  ) throws -> CentralDirectoryLocation {
    let record = try source.readBytes(at: offset, count: 56, what: "ZIP64 end of central directory")
    var reader = LittleEndianReader(record)
    guard reader.u32() == Signature.zip64EndOfCentralDirectory else {
      throw HealthExportError.corruptZip(
        path: source.displayName, detail: "no ZIP64 end of central directory record", byteOffset: offset)
    }
    guard reader.skip(8 + 2 + 2 + 4 + 4 + 8), let total = reader.u64(), let size = reader.u64(),
      let directoryOffset = reader.u64(), size <= UInt64(Int64.max), directoryOffset <= UInt64(Int64.max)
    else {
      throw HealthExportError.corruptZip(
        path: source.displayName, detail: "ZIP64 end of central directory is damaged", byteOffset: offset)
    }
    return CentralDirectoryLocation(
      entryCount: total, size: Int64(size), offset: Int64(directoryOffset), endRecordOffset: offset)
  }

  private static func readCentralDirectory(
    in source: any RandomAccessByteSource, end: CentralDirectoryLocation
  ) throws -> [ZipEntry] {
    guard end.offset >= 0, end.size >= 0, end.offset <= end.endRecordOffset,
      end.size <= end.endRecordOffset - end.offset
    else {
      throw HealthExportError.corruptZip(
        path: source.displayName, detail: "central directory lies outside the file",
        byteOffset: end.endRecordOffset)
    }
    // Bytes in front of the archive (a self-extractor stub, or a stream that was
    // prefixed) shift every offset: the directory then ends right at the end record.
    var shift: Int64 = 0
    var directoryOffset = end.offset
    let expectedStart = end.endRecordOffset - end.size
    if expectedStart != end.offset, end.entryCount > 0 {
      let probe = try source.readBytes(at: end.offset, count: 4, what: "central directory")
      if LittleEndianReader(probe).u32Value != Signature.centralHeader {
        shift = expectedStart - end.offset
        directoryOffset = expectedStart
      }
    }
    let directory = try source.readBytes(at: directoryOffset, count: Int(end.size), what: "central directory")
    var reader = LittleEndianReader(directory)
    var entries: [ZipEntry] = []
    entries.reserveCapacity(Int(min(end.entryCount, UInt64(directory.count / 46))))
    var index: UInt64 = 0
    while index < end.entryCount {
      let headerOffset = directoryOffset + Int64(reader.position)
      guard let entry = parseCentralHeader(&reader, headerOffset: headerOffset, shift: shift) else {
        throw HealthExportError.corruptZip(
          path: source.displayName,
          detail: "central directory entry \(index + 1) of \(end.entryCount) is damaged or truncated",
          byteOffset: headerOffset)
      }
      guard entry.localHeaderOffset >= 0, entry.localHeaderOffset < source.byteCount else {
        throw HealthExportError.corruptZip(
          path: source.displayName, detail: "\(entry.name) points outside the file", byteOffset: headerOffset)
      }
      entries.append(entry)
      index += 1
    }
    return entries
  }

  private static func parseCentralHeader(
    _ reader: inout LittleEndianReader, headerOffset: Int64, shift: Int64
  ) -> ZipEntry? {
    guard reader.u32() == Signature.centralHeader, reader.skip(4),
      let flags = reader.u16(), let method = reader.u16(), reader.skip(4),
      let crc = reader.u32(), let compressed32 = reader.u32(), let uncompressed32 = reader.u32(),
      let nameLength = reader.u16(), let extraLength = reader.u16(), let commentLength = reader.u16(),
      reader.skip(8), let offset32 = reader.u32(),
      let nameBytes = reader.bytes(Int(nameLength)), let extra = reader.bytes(Int(extraLength)),
      reader.skip(Int(commentLength))
    else { return nil }

    var compressed = UInt64(compressed32)
    var uncompressed = UInt64(uncompressed32)
    var offset = UInt64(offset32)
    var name = ZipNameDecoding.decode(nameBytes)

    // Extra fields: ZIP64 sizes/offset (0x0001), Info-ZIP Unicode path (0x7075).
    var extraReader = LittleEndianReader(Array(extra))
    while extraReader.remaining >= 4 {
      // A field longer than what is left is padding or junk: stop reading fields.
      guard let id = extraReader.u16(), let size = extraReader.u16(),
        let body = extraReader.bytes(Int(size))
      else { break }
      var field = LittleEndianReader(Array(body))
      switch id {
      case 0x0001:
        // Only the values saturated in the header appear, in this order.
        if uncompressed32 == 0xFFFF_FFFF {
          guard let value = field.u64() else { return nil }
          uncompressed = value
        }
        if compressed32 == 0xFFFF_FFFF {
          guard let value = field.u64() else { return nil }
          compressed = value
        }
        if offset32 == 0xFFFF_FFFF {
          guard let value = field.u64() else { return nil }
          offset = value
        }
      case 0x7075:
        if field.u8() == 1, field.skip(4), let unicode = field.bytes(field.remaining),
          let text = String(bytes: unicode, encoding: .utf8)
        {
          name = text
        }
      default:
        break
      }
    }
    guard compressed <= UInt64(Int64.max), uncompressed <= UInt64(Int64.max), offset <= UInt64(Int64.max)
    else {
      return nil
    }
    let (shifted, overflow) = Int64(offset).addingReportingOverflow(shift)
    guard !overflow else { return nil }
    return ZipEntry(
      name: name, rawName: Array(nameBytes), flags: flags, method: method, crc32: crc,
      compressedSize: Int64(compressed), uncompressedSize: Int64(uncompressed),
      localHeaderOffset: shifted, centralDirectoryOffset: headerOffset)
  }
}

extension LittleEndianReader {
  /// The first four bytes as a little-endian value, or `nil` when shorter.
  fileprivate var u32Value: UInt32? {
    var copy = self
    return copy.u32()
  }
}
