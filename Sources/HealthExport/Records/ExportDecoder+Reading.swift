import StepKitCore

extension ExportDecoder {
  /// Reads XML from `source` front to back into `log`: the one-thread reader,
  /// which ``ExportReader`` uses for a stream, bytes and small files, and the
  /// parallel reader for a file it does not cut and for a repair.
  static func readSamples(
    from source: any ByteChunkSource, entryName: String? = nil, into log: inout SampleLog,
    bufferBytes: Int = XMLScanner.defaultBufferBytes,
    maximumTokenBytes: Int = XMLScanner.defaultMaximumTokenBytes, fastRecords: Bool = true,
    progress: (@Sendable (ExportProgress) -> Void)? = nil
  ) throws -> ExportInfo {
    var decoder = ExportDecoder(
      source: source, mode: .samples, xmlEntryName: entryName, bufferBytes: bufferBytes,
      maximumTokenBytes: maximumTokenBytes, fastRecords: fastRecords, progress: progress)
    swap(&decoder.log, &log)
    defer { swap(&decoder.log, &log) }
    if let expected = source.expectedByteCount {
      // Room for as many samples as the file can hold, reserved up front so that
      // the log never grows by copying itself: untouched capacity costs address
      // space, not memory, so the peak stays the samples themselves.
      decoder.log.reserveCapacity(decoder.log.count + reservedSamples(forBytes: expected))
    }
    while case .record = try decoder.step() {}
    return decoder.info
  }

  /// About the fewest bytes a step or distance record with its dates takes
  /// in an export (no device, a one-letter source name).
  static let bytesPerSmallestSample: Int64 = 192

  /// How many samples to reserve room for ahead of reading `byteCount` bytes.
  ///
  /// A zip directory's size is a claim, not a fact: the reservation stops
  /// at ``mostReservedBytes``' worth, and the log grows past it as it fills.
  static func reservedSamples(forBytes byteCount: Int64) -> Int {
    Int(min(max(byteCount, 0), mostReservedBytes) / bytesPerSmallestSample)
  }

  /// The most input bytes a reservation is made for (a 4 GiB export's
  /// block table, about 8 MiB of address space).
  static let mostReservedBytes: Int64 = 4 << 30
}
