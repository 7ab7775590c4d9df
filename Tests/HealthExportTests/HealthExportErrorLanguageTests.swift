import HealthExport
import StepKitCore
import Testing

@Suite("HealthExportError in English, Simplified and Traditional Chinese")
struct HealthExportErrorLanguageTests {
  static let all: [HealthExportError] = [
    .cannotOpen(path: "export.zip", reason: "No such file"), .readFailed(path: "export.zip", reason: "I/O"),
    .notAZip(path: "export.zip"), .incompleteZip(path: "export.zip", byteCount: 4096),
    .corruptZip(path: "export.zip", detail: "short", byteOffset: 42),
    .unsupportedCompression(entry: "export.xml", method: 12), .encryptedEntry(entry: "export.xml"),
    .corruptCompressedData(entry: "export.xml", detail: "bad block"), .checksumMismatch(entry: "export.xml"),
    .noHealthExportXML(path: "export.zip", entries: ["photo.jpg"]),
    .malformedXML(file: "export.xml", line: 4, column: 2, detail: "'<' in a value"),
    .truncated(file: "export.xml", line: 41, column: 66),
    .tokenTooLarge(file: "export.xml", line: 1, column: 1, limit: 1024),
    .notAHealthExport(file: "export.xml"),
  ]

  @Test("every case reads in all three languages, each its own text", arguments: all)
  func threeLanguages(error: HealthExportError) {
    let texts = StepKitLanguage.allCases.map { error.description(in: $0) }
    #expect(Set(texts).count == 3, "\(texts)")
    #expect(error.description(in: .english) == error.errorDescription)
    #expect(error.description(in: .simplifiedChinese) == error.chineseDescription)
  }

  @Test("the Traditional Chinese text keeps file, line and column first")
  func location() {
    let error = HealthExportError.truncated(file: "export.xml", line: 41, column: 66)
    #expect(error.description(in: .traditionalChinese).hasPrefix("export.xml:41:66：檔案"))
  }
}
