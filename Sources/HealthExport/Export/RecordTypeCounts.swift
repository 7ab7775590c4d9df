import Foundation

extension ExportReader {
  /// How many top-level `<Record>`s of each `type` the export holds (records
  /// repeated inside a `<Correlation>` are not counted again).
  ///
  /// - Parameter input: The file, standard input, or bytes to read.
  /// - Returns: Each type present with its number of records.
  /// - Throws: A ``HealthExportError`` as ``read(_:into:progress:)`` does.
  public static func recordTypeCounts(in input: ExportInput) throws -> [String: Int] {
    var counts: [String: Int] = [:]
    try forEachRecord(in: input, types: nil) { record in
      counts[record.attributes["type"] ?? "", default: 0] += 1
    }
    return counts
  }
}
