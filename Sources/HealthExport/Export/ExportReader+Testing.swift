import Foundation
import StepKitCore

extension ExportReader {
  /// Reads `data` as export XML (never as a zip), front to back when
  /// `threads` is 1, otherwise cut into stretches of about `chunkBytes` and
  /// read on `threads` threads, however small the data. On one thread,
  /// `fastRecords: false` lexes every record's tag before decoding it,
  /// instead of reading records written as Apple writes them straight from
  /// their bytes.
  ///
  /// For differential tests and fuzzing: every way must give the same
  /// samples, counts, invalid-record report and error.
  @_spi(Testing)
  public static func readXML(
    _ data: Data, name: String, into log: inout SampleLog, threads: Int, chunkBytes: Int,
    bufferBytes: Int = 1 << 16, fastRecords: Bool = true
  ) throws -> ExportInfo {
    guard threads > 1 else {
      return try read(
        source: MemoryChunkSource(data, displayName: name), into: &log, bufferBytes: bufferBytes,
        fastRecords: fastRecords)
    }
    let settings = ParallelExportReader.Settings(
      threads: threads, chunkBytes: chunkBytes, headerBytes: chunkBytes, minimumBytes: 0,
      bufferBytes: bufferBytes)
    return try ParallelExportReader.read(
      MemoryByteSource(data, displayName: name), into: &log, settings: settings)
  }

  /// Hands out the records of `types` in `data`, read as export XML on the
  /// calling thread, as ``forEachRecord(in:ofTypes:threads:progress:_:)``
  /// does; `fastRecords: false` lexes every record's tag first instead of
  /// reading records written as Apple writes them straight from their bytes.
  ///
  /// For differential tests and fuzzing: both ways must hand out the same
  /// records and report the same invalid ones, or throw the same error.
  @_spi(Testing)
  public static func forEachRecordXML(
    _ data: Data, name: String, ofTypes types: [String], fastRecords: Bool, _ body: (RawRecord) throws -> Void
  ) throws -> WholeExportReport {
    try forEachRecord(
      source: MemoryChunkSource(data, displayName: name), ofTypes: RecordTypeFilter(types),
      bufferBytes: 1 << 16, fastRecords: fastRecords, body)
  }

  /// Hands out every element of `data`, read as export XML on the calling
  /// thread, as ``forEachElement(in:threads:progress:_:)`` does;
  /// `fastRecords: false` lexes every record's tag first instead of reading
  /// records written as Apple writes them straight from their bytes.
  ///
  /// For differential tests and fuzzing: both ways must hand out the same
  /// elements and report the same invalid ones, or throw the same error.
  @_spi(Testing)
  public static func forEachElementXML(
    _ data: Data, name: String, fastRecords: Bool, _ body: (ExportElement) throws -> Void
  ) throws -> WholeExportReport {
    try forEachElement(
      source: MemoryChunkSource(data, displayName: name), bufferBytes: 1 << 16, fastRecords: fastRecords, body
    )
  }

  /// Reads the file at `path` as export XML (never as a zip), as
  /// ``readXML(_:name:into:threads:chunkBytes:bufferBytes:)`` reads bytes,
  /// scanning it in place from mapped windows of `windowBytes`, or copying
  /// it with `pread` when `windowBytes` is `nil`.
  ///
  /// For differential tests and fuzzing: every way must give the same
  /// samples, counts, invalid-record report and error.
  @_spi(Testing)
  public static func readXMLFile(
    _ path: String, name: String, into log: inout SampleLog, threads: Int, chunkBytes: Int,
    windowBytes: Int?, bufferBytes: Int = 1 << 16
  ) throws -> ExportInfo {
    let file = try FileByteSource(
      path: path, displayName: name, reading: windowBytes.map { .mapped(windowBytes: $0) } ?? .copied)
    guard threads > 1 else {
      return try read(source: file.range(from: 0, to: nil), into: &log, bufferBytes: bufferBytes)
    }
    let settings = ParallelExportReader.Settings(
      threads: threads, chunkBytes: chunkBytes, headerBytes: chunkBytes, minimumBytes: 0,
      bufferBytes: bufferBytes)
    return try ParallelExportReader.read(file, into: &log, settings: settings)
  }
}
