import Foundation
import Testing

/// `@unchecked Sendable` turns the compiler's check off, so each use says why
/// sharing is safe, in a `// Safe to share:` comment at the top of its body.
@Suite("Every @unchecked Sendable says why it is safe")
struct UncheckedSendableTests {
  static let sources = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources")

  @Test("each declaration is followed by its reason")
  func everyUseExplained() throws {
    let enumerator = FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil)
    var uses = 0
    var unexplained: [String] = []
    while let url = enumerator?.nextObject() as? URL {
      guard url.pathExtension == "swift" else { continue }
      let lines = try String(contentsOf: url, encoding: .utf8).split(
        separator: "\n", omittingEmptySubsequences: false)
      for (index, line) in lines.enumerated() where line.contains("@unchecked Sendable") {
        guard !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") else { continue }
        uses += 1
        let next = index + 1 < lines.count ? lines[index + 1] : ""
        if !next.trimmingCharacters(in: .whitespaces).hasPrefix("// Safe to share:") {
          unexplained.append(
            "\(url.lastPathComponent):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
        }
      }
    }
    #expect(uses >= 30, "found \(uses) uses under \(Self.sources.path)")
    #expect(unexplained.isEmpty, Comment(rawValue: unexplained.joined(separator: "\n")))
  }
}
