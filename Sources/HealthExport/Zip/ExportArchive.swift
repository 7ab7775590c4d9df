import Foundation

/// An Apple Health `export.zip`, opened for reading in place (nothing is
/// unpacked to disk).
///
/// Opening reads only the zip's central directory. ``healthExportEntry()``
/// finds the Health XML by content, whatever its localized name, and
/// ``forEachChunk(of:_:)`` streams an entry's inflated bytes in bounded memory,
/// inflating on a separate thread while the caller works.
///
/// ```swift
/// let archive = try ExportArchive(path: "export.zip")
/// let xml = try archive.healthExportEntry()
/// try archive.forEachChunk(of: xml) { bytes in
///   consume(bytes)
///   return true
/// }
/// ```
public struct ExportArchive: Sendable {
  /// One file in the archive.
  public struct Entry: Sendable, Hashable {
    let zipEntry: ZipEntry

    /// The path inside the archive (`apple_health_export/export.xml`).
    public var name: String { zipEntry.name }
    /// The size of the stored (compressed) data in bytes.
    public var compressedSize: Int64 { zipEntry.compressedSize }
    /// The size once inflated, in bytes.
    public var uncompressedSize: Int64 { zipEntry.uncompressedSize }
    /// The zip compression method: 0 stored, 8 deflate.
    public var compressionMethod: Int { Int(zipEntry.method) }
    /// Whether the entry is a directory.
    public var isDirectory: Bool { zipEntry.isDirectory }
  }

  let archive: ZipArchive

  /// Opens the zip archive at `path`.
  ///
  /// - Parameter path: The archive's path.
  /// - Throws: ``HealthExportError/cannotOpen(path:reason:)``,
  ///   ``HealthExportError/notAZip(path:)``, or
  ///   ``HealthExportError/corruptZip(path:detail:byteOffset:)``.
  public init(path: String) throws {
    archive = try ZipArchive(source: FileByteSource(path: path))
  }

  /// Opens a zip archive held in memory.
  ///
  /// - Parameters:
  ///   - data: The archive's bytes.
  ///   - name: The name used in errors.
  /// - Throws: ``HealthExportError/notAZip(path:)`` or
  ///   ``HealthExportError/corruptZip(path:detail:byteOffset:)``.
  public init(data: Data, name: String = "export.zip") throws {
    archive = try ZipArchive(source: MemoryByteSource(data, displayName: name))
  }

  init(archive: ZipArchive) {
    self.archive = archive
  }

  /// The archive's name, as used in errors.
  public var name: String { archive.displayName }

  /// Every entry, in the order of the archive's central directory.
  public var entries: [Entry] { archive.entries.map(Entry.init(zipEntry:)) }

  /// The entry holding the Health export XML, recognised by content.
  ///
  /// - Returns: The first `.xml` entry (other than `export_cda.xml`) that starts
  ///   with `<!DOCTYPE HealthData` or `<HealthData`.
  /// - Throws: ``HealthExportError/noHealthExportXML(path:entries:)`` listing the
  ///   archive's entries when there is none, or the error met reading a candidate.
  public func healthExportEntry() throws -> Entry {
    Entry(zipEntry: try HealthXMLLocator.healthExportEntry(in: archive))
  }

  /// Streams the inflated bytes of `entry` to `body`, chunk by chunk, and
  /// checks its size and CRC-32 at the end.
  ///
  /// - Parameters:
  ///   - entry: An entry of this archive.
  ///   - body: Called with each chunk (valid only during the call); return
  ///     `false` to stop early (the inflating thread then stops too).
  /// - Returns: The number of bytes delivered.
  /// - Throws: ``HealthExportError/corruptCompressedData(entry:detail:)``,
  ///   ``HealthExportError/checksumMismatch(entry:)``,
  ///   ``HealthExportError/unsupportedCompression(entry:method:)`` and the other
  ///   archive errors.
  @discardableResult
  public func forEachChunk(
    of entry: Entry, _ body: (UnsafeRawBufferPointer) -> Bool
  ) throws -> Int64 {
    let source = try chunkSource(for: entry)
    defer { source.cancel() }
    var delivered: Int64 = 0
    while let chunk = try source.nextChunk() {
      delivered += Int64(chunk.count)
      if !body(chunk) { break }
    }
    return delivered
  }

  /// A pipelined chunk source over `entry` for the XML scanner.
  ///
  /// - Throws: The errors of ``ZipEntryChunkSource/init(archive:entry:bufferSize:bufferCount:headroom:engine:)``.
  func chunkSource(
    for entry: Entry, bufferSize: Int = 1 << 20, bufferCount: Int = 4
  ) throws -> ZipEntryChunkSource {
    try ZipEntryChunkSource(
      archive: archive, entry: entry.zipEntry, bufferSize: bufferSize, bufferCount: bufferCount)
  }
}
