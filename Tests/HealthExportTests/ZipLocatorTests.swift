import Foundation
import Testing

@testable import HealthExport

@Suite("Finding the Health XML in an archive")
struct ZipLocatorTests {
  @Test(
    "Found by content whatever its name",
    arguments: [
      ("apple_health_export/export.xml", true),
      ("apple_health_export/导出.xml", true),
      ("apple_health_export/导出.xml", false),
      ("apple_health_export/輸出.xml", false),
      ("健康/数据.XML", true),
      ("export.xml", true),
    ])
  func byContent(name: String, utf8Flag: Bool) throws {
    var writer = ZipTestWriter()
    writer.add("apple_health_export/", [])
    writer.add("apple_health_export/export_cda.xml", ZipTestSupport.healthXML)
    writer.add("apple_health_export/workout-routes/route_2019-06-11_3.00pm.gpx", "<gpx/>")
    writer.add("apple_health_export/notes.xml", "<?xml version=\"1.0\"?><notes/>")
    writer.add(name, ZipTestSupport.healthXML, .init(utf8Flag: utf8Flag))
    let archive = try ZipTestSupport.archive(writer.finished())
    #expect(try HealthXMLLocator.healthExportEntry(in: archive).name == name)
    let publicArchive = ExportArchive(archive: archive)
    #expect(try publicArchive.healthExportEntry().name == name)
  }

  @Test(
    "Recognised document starts",
    arguments: [
      ("<HealthData locale=\"en_US\">", true),
      ("\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n", true),
      ("<?xml version=\"1.0\"?>\n<!-- exported -->\n  <!-- twice --><HealthData>", true),
      ("<HealthData/>", true),
      ("<HealthDataX>", false),
      ("<ClinicalDocument xmlns=\"urn:hl7-org:v3\">", false),
      ("<?xml version=\"1.0\"?><!-- never closed", false),
      ("", false),
    ])
  func documentStarts(head: String, expected: Bool) {
    #expect(HealthXMLLocator.startsHealthExport(ArraySlice(Array(head.utf8))) == expected)
  }

  @Test("No Health XML lists the entries")
  func missing() throws {
    var writer = ZipTestWriter()
    writer.add("apple_health_export/export_cda.xml", "<ClinicalDocument/>")
    writer.add("photo.jpg", [0xFF, 0xD8])
    let archive = try ZipTestSupport.archive(writer.finished(), name: "mine.zip")
    let expected = HealthExportError.noHealthExportXML(
      path: "mine.zip", entries: ["apple_health_export/export_cda.xml", "photo.jpg"])
    #expect(throws: expected) { try HealthXMLLocator.healthExportEntry(in: archive) }
    #expect(expected.description(in: .english).contains("photo.jpg"))
    #expect(expected.chineseDescription.contains("photo.jpg"))
  }

  @Test("A damaged candidate is skipped when another is fine, reported when none is")
  func damagedCandidate() throws {
    var writer = ZipTestWriter()
    writer.add("apple_health_export/export.xml", "abc", .init(method: .stored, methodNumberOverride: 99))
    writer.add("apple_health_export/导出.xml", ZipTestSupport.healthXML)
    let archive = try ZipTestSupport.archive(writer.finished())
    #expect(try HealthXMLLocator.healthExportEntry(in: archive).name == "apple_health_export/导出.xml")

    var onlyDamaged = ZipTestWriter()
    onlyDamaged.add("apple_health_export/export.xml", "abc", .init(method: .stored, methodNumberOverride: 99))
    let damaged = try ZipTestSupport.archive(onlyDamaged.finished())
    #expect(throws: HealthExportError.unsupportedCompression(entry: "export.zip:apple_health_export/export.xml", method: 99)) {
      try HealthXMLLocator.healthExportEntry(in: damaged)
    }
  }
}
