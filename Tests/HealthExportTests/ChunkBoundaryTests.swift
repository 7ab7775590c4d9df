import Foundation
import StepKitCore
import Testing

@testable import HealthExport

@Suite("Chunk boundaries")
struct ChunkBoundaryTests {
  typealias T = ExportTestSupport

  /// Every quirk in one document.
  static let document: String = {
    let device =
      "&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.0&gt;"
    let body = """
       <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeAPositive" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
       <!-- \(T.steps("1000")) -->
       <?stepkit <Record?>
       <Record type='HKQuantityTypeIdentifierStepCount' sourceName='Lin’s iPhone' unit='count' startDate='2024-02-29 08:00:00 +0800' endDate='2024-02-29 08:10:00 +0800' value='100'/>
       <Record
          value="200" endDate="2024-02-29 09:10:00 +0800" startDate="2024-02-29 09:00:00 +0800" unit="count"
          sourceName="Apple&#32;Watch &amp; Co" device="\(device)"
          type="HKQuantityTypeIdentifierStepCount">
        <MetadataEntry key="HKWasUserEntered" value="1"/>
       </Record>
      \(T.steps("50", source: "Lin&#x2019;s iPhone"))
       <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Cuff" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:00:00 +0800">
      \(T.steps("9999"))
       </Correlation>
       <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="Lin’s iPhone" unit="mi" startDate="2024-02-29 08:00:00 -0500" endDate="2024-02-29 08:10:00 -0500" value="1"/>
       <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="W" unit="count/min" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:00:00 +0800" value="70">
        <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>
       </Record>
       <Workout sourceName="W"><![CDATA[ \(T.steps("5")) ]]></Workout>
       text with a \u{0B} vertical tab
      \(T.steps("7", source: "Tab\u{0B}Source"))
      \(T.steps("1", start: "yesterday"))
      \(T.steps("x"))
       <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="A" unit="kcal" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="1"/>
      """
    return "\u{FEFF}" + T.export(body, header: T.brokenVersion12DTD)
  }()

  @Test("The quirk document reads as hand-computed")
  func quirkDocument() throws {
    let outcome = try T.read(Self.document)
    // 100 + 200 (user-entered, kept in the log) + 50 + 7; the comment, CDATA and
    // Correlation records are not counted.
    #expect(T.stepTotal(outcome.samples) == 357)
    #expect(abs(T.distanceTotal(outcome.samples) - 1609.344) < 1e-9)
    #expect(outcome.samples.filter(\.isUserEntered).map(\.value) == [200])
    #expect(outcome.invalid.count == 3)
    #expect(outcome.info.recordCount == 9)
    #expect(outcome.info.stepAndDistanceRecords == 8)
    #expect(outcome.info.skippedControlCharacters == 2)
    #expect(outcome.info.exportVersion == 12)
    #expect(outcome.info.me.dateOfBirth == nil)
    #expect(outcome.info.me.biologicalSex == "HKBiologicalSexFemale")
    #expect(outcome.info.me.bloodType == "HKBloodTypeAPositive")
    #expect(outcome.info.me.cardioFitnessMedicationsUse == "None")
    #expect(Set(outcome.samples.map(\.source)) == ["Lin’s iPhone", "Apple Watch & Co", "Tab\u{0B}Source"])
    let distance = try #require(outcome.samples.first { $0.kind == .distance })
    #expect(distance.utcOffsetSeconds == -5 * 3600)
  }

  @Test(
    "Tiny buffers and reads give identical results",
    arguments: [(4, 1), (4, 7), (7, 1), (7, 7), (16, 64), (64, 1), (64, 7), (64, 64), (1000, 13)])
  func tinyPieces(bufferBytes: Int, chunkSize: Int) throws {
    let reference = try T.read(Self.document)
    let pieces = try T.read(Self.document, bufferBytes: bufferBytes, chunkSize: chunkSize)
    #expect(pieces == reference)
  }

  @Test("Every split point of the document gives identical results")
  func everySplit() throws {
    let reference = try T.read(Self.document)
    let bytes = Array(Self.document.utf8)
    for chunk in stride(from: 1, to: 200, by: 17) {
      #expect(try T.read(bytes: bytes, bufferBytes: 8, chunkSize: chunk) == reference)
    }
  }
}
