import CZlib
import Foundation

/// Writes a zip archive front to back: entries deflated with zlib as their
/// bytes arrive, sizes and CRC in a data descriptor after each entry, ZIP64
/// records whenever a size or offset needs them.
final class ZipFileWriter {
  /// What the central directory needs of a written entry. The same fields as
  /// HealthExport's `ZipEntry`, kept apart on purpose: the generator checks the
  /// reader and shares none of its code.
  private struct CentralRecord {
    var name: [UInt8]
    var flags: UInt16
    var crc: UInt32
    var compressedSize: UInt64
    var uncompressedSize: UInt64
    var offset: UInt64
  }

  private let file: FileOutput
  private let level: Int32
  private let utf8Flag: Bool
  private let forceZip64: Bool
  private var position: UInt64 = 0
  private var records: [CentralRecord] = []

  /// - Parameter forceZip64: Write ZIP64 records even for small archives (to test readers).
  init(path: String, level: Int32, utf8Flag: Bool, forceZip64: Bool = false) throws {
    file = try FileOutput(path: path)
    self.level = level
    self.utf8Flag = utf8Flag
    self.forceZip64 = forceZip64
  }

  /// Starts a deflated entry whose size is not known yet.
  ///
  /// - Parameter zip64: Reserve ZIP64 sizes in the local header and descriptor
  ///   (needed when the entry may pass 4 GiB).
  func beginEntry(name: String, zip64 requested: Bool) throws -> ZipEntryOutput {
    let zip64 = requested || forceZip64
    let nameBytes = Array(name.utf8)
    var flags: UInt16 = 0x0008
    if utf8Flag, nameBytes.contains(where: { $0 >= 0x80 }) { flags |= 0x0800 }
    let offset = position
    var header = LittleEndianBytes()
    header.u32(0x0403_4b50)
    header.u16(zip64 ? 45 : 20)
    header.u16(flags)
    header.u16(8)
    header.u16(0x4A00)  // 09:16
    header.u16(0x5B7D)
    header.u32(0)
    header.u32(zip64 ? 0xFFFF_FFFF : 0)
    header.u32(zip64 ? 0xFFFF_FFFF : 0)
    header.u16(UInt16(nameBytes.count))
    header.u16(zip64 ? 20 : 0)
    header.bytes += nameBytes
    if zip64 {
      header.u16(0x0001)
      header.u16(16)
      header.u64(0)
      header.u64(0)
    }
    try emit(header.bytes)
    return try ZipEntryOutput(
      writer: self, name: nameBytes, flags: flags, offset: offset, zip64: zip64, level: level)
  }

  fileprivate func emit(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try emit($0) }
  }

  fileprivate func emit(_ bytes: UnsafeRawBufferPointer) throws {
    try file.write(bytes)
    position += UInt64(bytes.count)
  }

  fileprivate func finishEntry(
    name: [UInt8], flags: UInt16, offset: UInt64, crc: UInt32, compressed: UInt64, uncompressed: UInt64,
    zip64: Bool
  ) throws {
    var descriptor = LittleEndianBytes()
    descriptor.u32(0x0807_4b50)
    descriptor.u32(crc)
    if zip64 {
      descriptor.u64(compressed)
      descriptor.u64(uncompressed)
    } else {
      guard compressed < 0xFFFF_FFFF, uncompressed < 0xFFFF_FFFF else {
        throw GeneratorError(description: "entry passed 4 GiB without ZIP64; raise --target-bytes estimate")
      }
      descriptor.u32(UInt32(compressed))
      descriptor.u32(UInt32(uncompressed))
    }
    try emit(descriptor.bytes)
    records.append(
      CentralRecord(
        name: name, flags: flags, crc: crc, compressedSize: compressed, uncompressedSize: uncompressed,
        offset: offset))
  }

  /// Writes a small entry in one go.
  func addEntry(name: String, contents: [UInt8]) throws {
    let entry = try beginEntry(name: name, zip64: false)
    try contents.withUnsafeBytes { try entry.write($0) }
    try entry.finish()
  }

  /// Writes the central directory and end records, and closes the file.
  func close() throws {
    let directoryStart = position
    var directory = LittleEndianBytes()
    for record in records {
      let needs64 =
        forceZip64 || record.compressedSize >= 0xFFFF_FFFF || record.uncompressedSize >= 0xFFFF_FFFF
        || record.offset >= 0xFFFF_FFFF
      directory.u32(0x0201_4b50)
      directory.u16(0x031E)
      directory.u16(needs64 ? 45 : 20)
      directory.u16(record.flags)
      directory.u16(8)
      directory.u16(0x4A00)
      directory.u16(0x5B7D)
      directory.u32(record.crc)
      directory.u32(needs64 ? 0xFFFF_FFFF : UInt32(record.compressedSize))
      directory.u32(needs64 ? 0xFFFF_FFFF : UInt32(record.uncompressedSize))
      directory.u16(UInt16(record.name.count))
      directory.u16(needs64 ? 28 : 0)
      directory.u16(0)
      directory.u16(0)
      directory.u16(0)
      directory.u32(0o100644 << 16)
      directory.u32(needs64 ? 0xFFFF_FFFF : UInt32(record.offset))
      directory.bytes += record.name
      if needs64 {
        directory.u16(0x0001)
        directory.u16(24)
        directory.u64(record.uncompressedSize)
        directory.u64(record.compressedSize)
        directory.u64(record.offset)
      }
    }
    try emit(directory.bytes)
    let directorySize = UInt64(directory.bytes.count)
    let needs64 =
      forceZip64 || directoryStart >= 0xFFFF_FFFF || records.count >= 0xFFFF
      || records.contains { $0.offset >= 0xFFFF_FFFF || $0.uncompressedSize >= 0xFFFF_FFFF }
    var end = LittleEndianBytes()
    if needs64 {
      let recordOffset = position
      end.u32(0x0606_4b50)
      end.u64(44)
      end.u16(45)
      end.u16(45)
      end.u32(0)
      end.u32(0)
      end.u64(UInt64(records.count))
      end.u64(UInt64(records.count))
      end.u64(directorySize)
      end.u64(directoryStart)
      end.u32(0x0706_4b50)
      end.u32(0)
      end.u64(recordOffset)
      end.u32(1)
    }
    end.u32(0x0605_4b50)
    end.u16(0)
    end.u16(0)
    end.u16(needs64 ? 0xFFFF : UInt16(records.count))
    end.u16(needs64 ? 0xFFFF : UInt16(records.count))
    end.u32(needs64 ? 0xFFFF_FFFF : UInt32(directorySize))
    end.u32(needs64 ? 0xFFFF_FFFF : UInt32(directoryStart))
    end.u16(0)
    try emit(end.bytes)
    try file.finish()
  }
}

/// One entry being deflated into a ``ZipFileWriter``.
final class ZipEntryOutput: ByteOutput {
  private unowned let writer: ZipFileWriter
  private let name: [UInt8]
  private let flags: UInt16
  private let offset: UInt64
  private let zip64: Bool
  private let stream: UnsafeMutablePointer<z_stream>
  private let output: UnsafeMutableRawBufferPointer
  private var crc: uLong = 0
  private var uncompressed: UInt64 = 0
  private var compressed: UInt64 = 0
  private var finished = false

  fileprivate init(
    writer: ZipFileWriter, name: [UInt8], flags: UInt16, offset: UInt64, zip64: Bool, level: Int32
  ) throws {
    self.writer = writer
    self.name = name
    self.flags = flags
    self.offset = offset
    self.zip64 = zip64
    stream = .allocate(capacity: 1)
    stream.initialize(to: z_stream())
    output = .allocate(byteCount: 1 << 20, alignment: 16)
    let status = deflateInit2_(
      stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)
    )
    guard status == Z_OK else { throw GeneratorError(description: "zlib deflateInit2 failed (\(status))") }
  }

  deinit {
    deflateEnd(stream)
    stream.deallocate()
    output.deallocate()
  }

  func write(_ bytes: UnsafeRawBufferPointer) throws {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    crc = CZlib.crc32(crc, base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
    uncompressed += UInt64(bytes.count)
    stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
    stream.pointee.avail_in = uInt(bytes.count)
    try pump(flush: Z_NO_FLUSH)
  }

  private func pump(flush: Int32) throws {
    while true {
      stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
      stream.pointee.avail_out = uInt(output.count)
      let status = deflate(stream, flush)
      let produced = output.count - Int(stream.pointee.avail_out)
      if produced > 0 {
        try writer.emit(UnsafeRawBufferPointer(rebasing: output[..<produced]))
        compressed += UInt64(produced)
      }
      if status == Z_STREAM_END { return }
      guard status == Z_OK || status == Z_BUF_ERROR else {
        throw GeneratorError(description: "zlib deflate failed (\(status))")
      }
      if flush == Z_NO_FLUSH, stream.pointee.avail_in == 0, stream.pointee.avail_out > 0 { return }
    }
  }

  func finish() throws {
    guard !finished else { return }
    finished = true
    stream.pointee.next_in = nil
    stream.pointee.avail_in = 0
    try pump(flush: Z_FINISH)
    try writer.finishEntry(
      name: name, flags: flags, offset: offset, crc: UInt32(truncatingIfNeeded: crc), compressed: compressed,
      uncompressed: uncompressed, zip64: zip64)
  }
}

struct LittleEndianBytes {
  var bytes: [UInt8] = []
  mutating func u16(_ value: UInt16) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
  mutating func u32(_ value: UInt32) {
    for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
  }
  mutating func u64(_ value: UInt64) {
    for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
  }
}
