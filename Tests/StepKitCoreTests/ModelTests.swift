import Foundation
import Testing

@testable import StepKitCore

@Suite("Samples, devices and units")
struct ModelTests {
  @Test("HKDevice descriptions parse on comma-space, keeping hardware commas")
  func deviceParsing() throws {
    let device = try #require(
      Device(
        hkDeviceDescription:
          "<<HKDevice: 0x282a45810>, name:Apple Watch, manufacturer:Apple, model:Watch, hardware:Watch6,1, software:4.3.1, creation date:2024-08-31 17:17:55 +0000>"
      ))
    #expect(device.name == "Apple Watch")
    #expect(device.hardware == "Watch6,1")
    #expect(device.software == "4.3.1")
    #expect(device.isAppleWatch)
    #expect(Device(hkDeviceDescription: "nothing here") == nil)
  }

  @Test(
    "Typed-in metadata values",
    arguments: [("1", true), ("true", true), ("YES", true), ("0", false), ("no", false), ("", false)])
  func userEntered(text: String, expected: Bool) {
    #expect(isUserEnteredMetadataValue(text) == expected)
  }

  @Test("Length units convert to metres")
  func units() {
    #expect(LengthUnit.metres(2, unit: "km") == 2000)
    #expect(LengthUnit.metres(1, unit: "mi") == 1609.344)
    #expect(LengthUnit.metres(10, unit: "ft")!.isClose(to: 3.048))
    #expect(LengthUnit.metres(1, unit: "yd") == 0.9144)
    #expect(LengthUnit.metres(1, unit: "kg") == nil)
  }

  @Test("A long user-entered distance sample with milliseconds round-trips")
  func packing() {
    let start = Date(timeIntervalSince1970: 1_780_000_000.123)
    let long = Sample(
      kind: .distance, start: start, end: start.addingTimeInterval(60 * 86_400), value: 12.5,
      utcOffsetSeconds: -9000, source: "S", isUserEntered: true)
    let log = SampleLog([long])
    let back = log.sample(at: 0)
    #expect(back.kind == .distance)
    #expect(back.utcOffsetSeconds == -9000)
    #expect(back.isUserEntered)
    #expect(back.end.epochMilliseconds == long.end.epochMilliseconds)
    #expect(back.start.epochMilliseconds == start.epochMilliseconds)
  }

  @Test("Interval totals clip pieces to the interval")
  func intervalTotals() {
    let samples = [
      Fixture.steps("2026-05-01 10:00", "2026-05-01 10:10", 1000, source: "Watch", device: Fixture.watch),
      Fixture.steps("2026-05-01 10:05", "2026-05-01 10:15", 600, source: "Phone", device: Fixture.phone),
    ]
    let totals = SampleLog(samples).totals(
      in: DateInterval(start: Fixture.date("2026-05-01 10:05"), end: Fixture.date("2026-05-01 10:15")))
    #expect(totals.steps == 500 + 300)
    #expect(totals.stepsBySource == ["Watch": 500, "Phone": 300])
    #expect(totals.rawSteps == 500 + 600)
  }
}
