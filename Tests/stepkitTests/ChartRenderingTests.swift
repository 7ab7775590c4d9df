import Foundation
import Testing

/// The first Chromium (or Chrome) on `PATH`, if any.
let chromiumPath: String? = {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
  for directory in path.split(separator: ":") {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
      let candidate = "\(directory)/\(name)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
  }
  return nil
}()

@Suite("Chart in a real browser", .hangLimit(minutes: 2))
struct ChartRenderingTests {
  @Test(
    "headless Chromium renders the HTML chart to a screenshot",
    .enabled(if: chromiumPath != nil, "needs chromium (Debian: apt-get install chromium)"))
  func rendersInChromium() throws {
    let browser = try #require(chromiumPath)
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("stepkit-render-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let fixture = StepkitRunner.fixtures.appendingPathComponent("watch-and-phone.xml").path
    let chart = try StepkitRunner.run(["chart", fixture, "-o", "steps.html", "-q"], in: directory)
    #expect(chart.exitCode == 0)

    let screenshot = directory.appendingPathComponent("steps.png")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: browser)
    process.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,700",
      "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
      "--screenshot=\(screenshot.path)", directory.appendingPathComponent("steps.html").absoluteString,
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let png = try Data(contentsOf: screenshot)
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    // A blank 1200×700 page compresses to a few kilobytes; bars, axes and text do not.
    #expect(png.count > 20_000)
  }
}
