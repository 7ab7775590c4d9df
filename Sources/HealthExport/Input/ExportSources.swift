import Foundation

/// Opens whatever a person points at, an `export.zip`, an unpacked
/// `export.xml`, or standard input, as one ``ByteChunkSource`` of Health XML.
enum ExportSources {
  /// Opens `path`: `-` is standard input (XML); a zip archive (recognised by
  /// its signature, or by a `.zip` name) yields its Health export entry,
  /// inflated on a separate thread; anything else is read as XML.
  ///
  /// - Throws: ``HealthExportError/cannotOpen(path:reason:)`` and the archive
  ///   errors of ``ExportArchive``.
  static func open(path: String) throws(HealthExportError) -> any ByteChunkSource {
    if path == "-" { return FileChunkSource.standardInput() }
    let file = try FileByteSource(path: path)
    if try isZip(file) || path.lowercased().hasSuffix(".zip") {
      return try openZip(ZipArchive(source: file))
    }
    return try FileChunkSource(path: path)
  }

  /// Opens bytes held in memory, a zip archive or XML, like ``open(path:)``.
  ///
  /// - Parameters:
  ///   - data: The bytes.
  ///   - name: The name used in errors (`export.zip`, `export.xml`).
  static func open(data: Data, name: String) throws(HealthExportError) -> any ByteChunkSource {
    let memory = MemoryByteSource(data, displayName: name)
    if try isZip(memory) || name.lowercased().hasSuffix(".zip") {
      return try openZip(ZipArchive(source: memory))
    }
    return MemoryChunkSource(data, displayName: name)
  }

  private static func openZip(_ archive: ZipArchive) throws(HealthExportError) -> ZipEntryChunkSource {
    let entry = try HealthXMLLocator.healthExportEntry(in: archive)
    return try ZipEntryChunkSource(archive: archive, entry: entry)
  }

  /// Whether the bytes start with a zip signature (`PK\3\4`, or `PK\5\6` for an empty archive).
  private static func isZip(_ source: any RandomAccessByteSource) throws(HealthExportError) -> Bool {
    guard source.byteCount >= 4 else { return false }
    let head = try source.readBytes(at: 0, count: 4, what: "file signature")
    return head == [0x50, 0x4B, 0x03, 0x04] || head == [0x50, 0x4B, 0x05, 0x06]
  }
}
