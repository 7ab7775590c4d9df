import CZlib
import Foundation

/// Builds zip archives in memory for tests: stored or deflated entries, with or
/// without data descriptors, ZIP64 records, the UTF-8 name flag, comments,
/// leading bytes, and deliberately wrong checksums.
///
/// Apart from the export generator's `ZipFileWriter` on purpose, though both
/// write the same records: this one breaks archives on request, which the
/// generator must never do, and the reader is checked against two writers.
struct ZipTestWriter {
  enum Method {
    case stored
    case deflated
  }

  struct EntryOptions {
    var method: Method = .deflated
    /// Sizes and CRC after the data (flag bit 3) instead of in the local header.
    var dataDescriptor = false
    /// ZIP64 extra fields with saturated 32-bit sizes and offset.
    var zip64 = false
    /// Sets flag bit 11 (UTF-8 name).
    var utf8Flag = true
    /// Stores these bytes as the name instead of the name's UTF-8.
    var rawName: [UInt8]? = nil
    /// Writes this CRC instead of the real one.
    var crcOverride: UInt32? = nil
    /// Extra bytes in the local header only (padding, as some tools write).
    var localExtraPadding = 0
    /// Overrides the method number written (for unsupported methods).
    var methodNumberOverride: UInt16? = nil
    /// Extra general-purpose flag bits.
    var extraFlags: UInt16 = 0
    /// Extra field bytes in the central directory record only (after any ZIP64 field).
    var centralExtra: [UInt8] = []
    /// Keeps only this many compressed bytes (a truncated stream), with sizes written to match.
    var truncateCompressedTo: Int? = nil
    /// The deflate level (1–9; 0 writes deflate's stored blocks).
    var level: Int32 = 6
    /// Declares this uncompressed size in both headers instead of the real one (a lying directory).
    var declaredUncompressedSize: UInt64? = nil
  }

  private struct Central {
    var nameBytes: [UInt8]
    var flags: UInt16
    var method: UInt16
    var crc: UInt32
    var compressedSize: Int
    var uncompressedSize: Int
    var offset: Int
    var zip64: Bool
    var extra: [UInt8]
  }

  private(set) var bytes: [UInt8] = []
  private var centrals: [Central] = []

  /// Starts the archive after `prefix` (a self-extractor stub, for example).
  init(prefix: [UInt8] = []) {
    bytes = prefix
  }

  mutating func add(_ name: String, _ contents: String, _ options: EntryOptions = EntryOptions()) {
    add(name, Array(contents.utf8), options)
  }

  mutating func add(_ name: String, _ contents: [UInt8], _ options: EntryOptions = EntryOptions()) {
    let nameBytes = options.rawName ?? Array(name.utf8)
    var data = options.method == .stored ? contents : Self.deflate(contents, level: options.level)
    if let limit = options.truncateCompressedTo { data = Array(data.prefix(limit)) }
    let crc = options.crcOverride ?? Self.crc32(contents)
    var flags = options.extraFlags
    if options.utf8Flag { flags |= 0x0800 }
    if options.dataDescriptor { flags |= 0x0008 }
    let method = options.methodNumberOverride ?? (options.method == .stored ? 0 : 8)
    let uncompressedSize =
      options.declaredUncompressedSize.map { Int(truncatingIfNeeded: $0) }
      ?? (options.truncateCompressedTo != nil && options.method == .stored ? data.count : contents.count)
    let offset = bytes.count

    // Local header.
    put32(0x0403_4b50)
    put16(options.zip64 ? 45 : 20)
    put16(flags)
    put16(method)
    put16(0x6000)  // 12:00
    put16(0x5B7D)  // 2025-11-29
    if options.dataDescriptor {
      put32(0)
      put32(options.zip64 ? 0xFFFF_FFFF : 0)
      put32(options.zip64 ? 0xFFFF_FFFF : 0)
    } else {
      put32(crc)
      put32(options.zip64 ? 0xFFFF_FFFF : UInt32(data.count))
      put32(options.zip64 ? 0xFFFF_FFFF : UInt32(uncompressedSize))
    }
    let localExtraLength = (options.zip64 ? 20 : 0) + options.localExtraPadding
    put16(UInt16(nameBytes.count))
    put16(UInt16(localExtraLength))
    bytes += nameBytes
    if options.zip64 {
      put16(0x0001)
      put16(16)
      put64(options.dataDescriptor ? 0 : UInt64(uncompressedSize))
      put64(options.dataDescriptor ? 0 : UInt64(data.count))
    }
    if options.localExtraPadding > 0 {
      // An unknown extra field (id 0xCAFE) filling the padding.
      put16(0xCAFE)
      put16(UInt16(options.localExtraPadding - 4))
      bytes += [UInt8](repeating: 0, count: options.localExtraPadding - 4)
    }
    bytes += data
    if options.dataDescriptor {
      put32(0x0807_4b50)
      put32(crc)
      if options.zip64 {
        put64(UInt64(data.count))
        put64(UInt64(uncompressedSize))
      } else {
        put32(UInt32(data.count))
        put32(UInt32(uncompressedSize))
      }
    }
    centrals.append(
      Central(
        nameBytes: nameBytes, flags: flags, method: method, crc: crc, compressedSize: data.count,
        uncompressedSize: uncompressedSize, offset: offset, zip64: options.zip64,
        extra: options.centralExtra))
  }

  /// Appends the central directory and end records.
  ///
  /// - Parameters:
  ///   - comment: The archive comment.
  ///   - zip64End: Writes the ZIP64 end record and locator (and saturates the classic one).
  ///   - trailing: Bytes after the end record (junk some tools leave).
  func finished(comment: [UInt8] = [], zip64End: Bool = false, trailing: [UInt8] = []) -> [UInt8] {
    var writer = self
    let directoryStart = writer.bytes.count
    for central in centrals {
      writer.put32(0x0201_4b50)
      writer.put16(0x031E)  // made by Unix, 3.0
      writer.put16(central.zip64 ? 45 : 20)
      writer.put16(central.flags)
      writer.put16(central.method)
      writer.put16(0x6000)
      writer.put16(0x5B7D)
      writer.put32(central.crc)
      writer.put32(central.zip64 ? 0xFFFF_FFFF : UInt32(central.compressedSize))
      writer.put32(central.zip64 ? 0xFFFF_FFFF : UInt32(central.uncompressedSize))
      writer.put16(UInt16(central.nameBytes.count))
      writer.put16(UInt16((central.zip64 ? 28 : 0) + central.extra.count))
      writer.put16(0)  // comment
      writer.put16(0)  // disk
      writer.put16(0)  // internal attributes
      writer.put32(0o100644 << 16)
      writer.put32(central.zip64 ? 0xFFFF_FFFF : UInt32(central.offset))
      writer.bytes += central.nameBytes
      if central.zip64 {
        writer.put16(0x0001)
        writer.put16(24)
        writer.put64(UInt64(central.uncompressedSize))
        writer.put64(UInt64(central.compressedSize))
        writer.put64(UInt64(central.offset))
      }
      writer.bytes += central.extra
    }
    let directorySize = writer.bytes.count - directoryStart
    if zip64End {
      let recordOffset = writer.bytes.count
      writer.put32(0x0606_4b50)
      writer.put64(44)
      writer.put16(45)
      writer.put16(45)
      writer.put32(0)
      writer.put32(0)
      writer.put64(UInt64(centrals.count))
      writer.put64(UInt64(centrals.count))
      writer.put64(UInt64(directorySize))
      writer.put64(UInt64(directoryStart))
      writer.put32(0x0706_4b50)
      writer.put32(0)
      writer.put64(UInt64(recordOffset))
      writer.put32(1)
    }
    writer.put32(0x0605_4b50)
    writer.put16(0)
    writer.put16(0)
    writer.put16(zip64End ? 0xFFFF : UInt16(centrals.count))
    writer.put16(zip64End ? 0xFFFF : UInt16(centrals.count))
    writer.put32(zip64End ? 0xFFFF_FFFF : UInt32(directorySize))
    writer.put32(zip64End ? 0xFFFF_FFFF : UInt32(directoryStart))
    writer.put16(UInt16(comment.count))
    writer.bytes += comment
    writer.bytes += trailing
    return writer.bytes
  }

  private mutating func put16(_ value: UInt16) {
    bytes += [UInt8(value & 0xFF), UInt8(value >> 8)]
  }

  private mutating func put32(_ value: UInt32) {
    for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
  }

  private mutating func put64(_ value: UInt64) {
    for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
  }

  /// Raw deflate (no zlib header) at level 6.
  static func deflate(_ input: [UInt8], level: Int32 = 6) -> [UInt8] {
    // zlib checks that the stream stays at one address: keep it on the heap.
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer {
      deflateEnd(stream)
      stream.deallocate()
    }
    let status = deflateInit2_(
      stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)
    )
    precondition(status == Z_OK, "deflateInit2_ failed")
    var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(input.count))) + 64)
    var input = input
    let produced = input.withUnsafeMutableBufferPointer { inBuffer in
      output.withUnsafeMutableBufferPointer { outBuffer in
        stream.pointee.next_in = inBuffer.baseAddress
        stream.pointee.avail_in = uInt(inBuffer.count)
        stream.pointee.next_out = outBuffer.baseAddress
        stream.pointee.avail_out = uInt(outBuffer.count)
        let result = CZlib.deflate(stream, Z_FINISH)
        precondition(result == Z_STREAM_END, "deflate did not finish")
        return outBuffer.count - Int(stream.pointee.avail_out)
      }
    }
    return Array(output.prefix(produced))
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBufferPointer { buffer in
      UInt32(CZlib.crc32(0, buffer.baseAddress, uInt(buffer.count)))
    }
  }
}
