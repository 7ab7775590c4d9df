import Foundation
import Testing

@testable import StepKitCore

@Suite("Concatenating sample logs")
struct SampleLogConcatenationTests {
  private static func sample(_ index: Int, source: String, device: Device? = nil, value: Double? = nil)
    -> Sample
  {
    let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 600)
    return Sample(
      kind: index % 3 == 0 ? .distance : .steps, start: start,
      end: start.addingTimeInterval(300 + Double(index)),
      value: value ?? Double(index * 7), utcOffsetSeconds: (index % 5 - 2) * 3600, source: source,
      device: device,
      isUserEntered: index % 4 == 0)
  }

  private static let watch = Device(hkDeviceDescription: "<<HKDevice: 0x1>, name:Apple Watch, model:Watch>")

  /// Samples from three origins, one in three invalid (negative values).
  private static func samples(_ range: Range<Int>, sources: [String]) -> [(
    Sample, StepKitCore.SourceLocation
  )] {
    range.map { index in
      let source = sources[index % sources.count]
      let value: Double? = index % 3 == 1 ? -1 : nil
      return (
        sample(index, source: source, device: source == "Watch" ? watch : nil, value: value),
        StepKitCore.SourceLocation(file: "x.xml", line: index + 1, column: 2)
      )
    }
  }

  @Test("Appending a log equals appending its samples one by one, origins renumbered in first-seen order")
  func sameAsOneByOne() {
    let first = Self.samples(0..<10, sources: ["iPhone", "Watch"])
    let second = Self.samples(10..<80, sources: ["Health", "Watch", "iPhone", "Scale"])
    var oneByOne = SampleLog()
    for (sample, location) in first + second { oneByOne.append(sample, location: location) }

    var joined = SampleLog()
    for (sample, location) in first { joined.append(sample, location: location) }
    var other = SampleLog()
    for (sample, location) in second { other.append(sample, location: location) }
    joined.append(contentsOf: other)

    #expect(joined.samples == oneByOne.samples)
    #expect(joined.origins == oneByOne.origins)
    #expect(joined.sourceNames == oneByOne.sourceNames)
    #expect(
      (0..<joined.count).map(joined.originOfSample(at:))
        == (0..<oneByOne.count).map(oneByOne.originOfSample(at:)))
    #expect(joined.invalid == oneByOne.invalid)
    #expect(joined.invalid.count > InvalidSampleReport.keptExamples)
    #expect(
      joined.tally(CountingOptions(unit: .day)).buckets == oneByOne.tally(CountingOptions(unit: .day)).buckets
    )
  }

  @Test("Kept examples stop at the cap whichever log held them; locations can be moved")
  func invalidCap() {
    var full = SampleLog()
    for (sample, location) in Self.samples(0..<90, sources: ["A"]) { full.append(sample, location: location) }
    var other = SampleLog()
    for (sample, location) in Self.samples(0..<9, sources: ["B"]) { other.append(sample, location: location) }
    let before = full.invalid
    full.append(contentsOf: other)
    #expect(full.invalid.examples == before.examples)
    #expect(full.invalid.count == before.count + other.invalid.count)

    var empty = SampleLog()
    empty.append(contentsOf: other) { location in
      var moved = location
      moved.line = location.line.map { $0 + 100 }
      return moved
    }
    #expect(empty.invalid.count == other.invalid.count)
    #expect(
      empty.invalid.examples.map { $0.location?.line }
        == other.invalid.examples.map { ($0.location?.line ?? 0) + 100 })
    #expect(empty.invalid.examples.map(\.reason) == other.invalid.examples.map(\.reason))
  }

  @Test("Origins registered without samples are carried over in their place")
  func unusedOrigins() {
    var other = SampleLog()
    _ = other.origin(source: "Unused", device: nil)
    other.append(Self.sample(1, source: "Used"))
    var log = SampleLog()
    log.append(Self.sample(2, source: "Used"))
    log.append(contentsOf: other)
    #expect(log.origins.map(\.source) == ["Used", "Unused"])
    #expect(log.count == 2)
  }
}
