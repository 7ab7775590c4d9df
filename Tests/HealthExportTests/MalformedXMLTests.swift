import Foundation
import StepKitCore
import Testing

@testable import HealthExport

@Suite("Malformed XML: typed errors with file, line and column")
struct MalformedXMLTests {
  typealias T = ExportTestSupport

  static let cases: [(String, String, HealthExportError)] = [
    (
      "mismatched end tag",
      "<HealthData locale=\"en\">\n <Workout>\n  <WorkoutEvent type=\"x\">\n </Workout>\n</HealthData>",
      .malformedXML(
        file: "export.xml", line: 4, column: 2, detail: "end tag </Workout> does not match <WorkoutEvent>")
    ),
    (
      "'<' in an attribute value",
      "<HealthData locale=\"en\">\n <Record type=\"a<b\"/>\n</HealthData>",
      .malformedXML(file: "export.xml", line: 2, column: 17, detail: "'<' in the value of attribute 'type'")
    ),
    (
      "unclosed tag runs into the next",
      "<HealthData locale=\"en\">\n <Record type=\"x\"\n <Record type=\"y\"/>\n</HealthData>",
      .malformedXML(file: "export.xml", line: 3, column: 2, detail: "'<' inside a tag (is a tag unclosed?)")
    ),
    (
      "unknown entity in a decoded value",
      "<HealthData locale=\"en&nbsp;US\">\n</HealthData>",
      .malformedXML(
        file: "export.xml", line: 1, column: 23,
        detail: "unknown entity '&nbsp;' (only the five predefined ones are read)")
    ),
    (
      "entity declared in the DTD is not expanded",
      "<!DOCTYPE HealthData [<!ENTITY a \"aaaa\">]>\n<HealthData locale=\"&a;\"/>",
      .malformedXML(
        file: "export.xml", line: 2, column: 21,
        detail: "unknown entity '&a;' (only the five predefined ones are read)")
    ),
    (
      "bad character reference",
      "<HealthData locale=\"&#xD800;\"/>",
      .malformedXML(file: "export.xml", line: 1, column: 21, detail: "invalid character reference '&#xD800;'")
    ),
    (
      "attribute without a value",
      "<HealthData locale=\"en\">\n <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName/>\n</HealthData>",
      .malformedXML(file: "export.xml", line: 2, column: 51, detail: "attribute 'sourceName' has no value")
    ),
    (
      "unquoted attribute value",
      "<HealthData locale=en>\n</HealthData>",
      .malformedXML(
        file: "export.xml", line: 1, column: 20, detail: "the value of attribute 'locale' is not quoted")
    ),
    (
      "end tag with nothing open",
      "<HealthData locale=\"en\"/>\n</HealthData>",
      .malformedXML(
        file: "export.xml", line: 2, column: 1, detail: "end tag </HealthData> with no open element")
    ),
    (
      "text after the root",
      "<HealthData locale=\"en\"></HealthData>\njunk",
      .malformedXML(file: "export.xml", line: 2, column: 1, detail: "text after the root element")
    ),
    (
      "second root (export_cda.xml style)",
      "<HealthData locale=\"en\"></HealthData>\n<HealthData locale=\"en\"></HealthData>",
      .malformedXML(file: "export.xml", line: 2, column: 1, detail: "a second root element")
    ),
    (
      "'<' followed by a space",
      "<HealthData locale=\"en\">\n a < b\n</HealthData>",
      .malformedXML(file: "export.xml", line: 2, column: 4, detail: "'<' not followed by a name")
    ),
    (
      "truncated inside a tag",
      "<HealthData locale=\"en\">\n <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceN",
      .truncated(file: "export.xml", line: 2, column: 58)
    ),
    (
      "truncated with open elements",
      "<HealthData locale=\"en\">\n <Record type=\"x\">\n  <MetadataEntry key=\"k\" value=\"v\"/>\n",
      .truncated(file: "export.xml", line: 4, column: 1)
    ),
    (
      "truncated inside a comment",
      "<HealthData locale=\"en\">\n <!-- a comment that never",
      .truncated(file: "export.xml", line: 2, column: 27)
    ),
    (
      "truncated inside the DTD",
      "<!DOCTYPE HealthData [\n<!ATTLIST x y CDATA #IMPLIED\n",
      .truncated(file: "export.xml", line: 3, column: 1)
    ),
    (
      "end tag one byte longer than the open element's name",
      "<HealthData locale=\"en\">\n <Record type=\"x\">\n </RecordX>\n</HealthData>",
      .malformedXML(
        file: "export.xml", line: 3, column: 2, detail: "end tag </RecordX> does not match <Record>")
    ),
    (
      "end tag one byte shorter than the open element's name",
      "<HealthData locale=\"en\">\n <Record type=\"x\">\n </Recor>\n</HealthData>",
      .malformedXML(
        file: "export.xml", line: 3, column: 2, detail: "end tag </Recor> does not match <Record>")
    ),
    (
      "a recent tag's name followed by a byte no name may have",
      "<HealthData locale=\"en\">\n <Record type=\"x\"/>\n <Record\u{01} type=\"y\"/>\n</HealthData>",
      .malformedXML(
        file: "export.xml", line: 3, column: 9, detail: "unexpected character in the name of a tag")
    ),
    ("empty file", "", .notAHealthExport(file: "export.xml")),
    ("another XML document", "<ClinicalDocument></ClinicalDocument>", .notAHealthExport(file: "export.xml")),
    ("not XML", "{\"steps\": 3}", .notAHealthExport(file: "export.xml")),
  ]

  @Test("Each malformed input gives its exact error", arguments: cases.indices)
  func malformed(index: Int) {
    let (_, xml, expected) = Self.cases[index]
    #expect(T.error(xml) == expected)
  }

  @Test("Errors are the same whatever the chunk and buffer sizes", arguments: cases.indices)
  func malformedInTinyPieces(index: Int) {
    let (_, xml, expected) = Self.cases[index]
    for (buffer, chunk) in [(4, 1), (7, 7), (64, 3), (16, 64)] {
      #expect(
        T.error(xml, bufferBytes: buffer, chunkSize: chunk) == expected, "buffer \(buffer), chunk \(chunk)")
    }
  }

  @Test("Error descriptions name the place in English and Chinese")
  func descriptions() {
    let error = HealthExportError.malformedXML(file: "export.xml", line: 4, column: 2, detail: "x")
    #expect(error.errorDescription == "export.xml:4:2: malformed XML: x.")
    #expect(error.chineseDescription.hasPrefix("export.xml:4:2："))
    let truncated = HealthExportError.truncated(file: "export.xml", line: 9, column: 1)
    #expect(truncated.errorDescription?.contains("export.xml:9:1") == true)
  }
}
