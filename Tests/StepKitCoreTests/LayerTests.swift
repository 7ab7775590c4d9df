import Foundation
import Testing

/// StepKitCore's folders are layers (docs/READING.md, "Where the code lives"):
/// each uses only the types of the folders below it. Read from the sources
/// themselves, so that a new dependency upwards fails here rather than in a
/// reviewer's head.
@Suite("StepKitCore's folders use only the folders below them")
struct LayerTests {
  /// Bottom up. `Language` holds the shared localized texts, which any layer may use.
  static let layers = ["Language", "Model", "Storage", "Log", "Policy", "Buckets", "Merge", "Tally"]

  static let sources = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/StepKitCore")

  /// Every Swift file of the module, by folder (`""` for the top level), with its code and no comments.
  static func files() throws -> [(folder: String, path: String, code: String)] {
    let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
    var found: [(String, String, String)] = []
    while let url = enumerator?.nextObject() as? URL {
      guard url.pathExtension == "swift" else { continue }
      let relative = String(url.path.dropFirst(sources.path.count + 1))
      let parts = relative.split(separator: "/")
      let folder = parts.count > 1 ? String(parts[0]) : ""
      let text = try String(contentsOf: url, encoding: .utf8)
      let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
        line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
      }.joined(separator: "\n")
      found.append((folder, relative, code))
    }
    return found
  }

  @Test("Every folder is a known layer, and no type is used from a layer above")
  func layersPointDown() throws {
    let files = try Self.files()
    #expect(files.count > 30, "found \(files.count) files under \(Self.sources.path)")
    let declaration = try Regex(
      #"(?m)^\s*(?:(?:public|internal|private|fileprivate|final|@usableFromInline|@frozen)\s+)*(?:struct|class|enum|protocol|typealias|actor)\s+([A-Z][A-Za-z0-9_]*)"#
    )
    var layerOfType: [String: String] = [:]
    for file in files where !file.folder.isEmpty {
      #expect(Self.layers.contains(file.folder), "\(file.path) is in a folder that is not a layer")
      for match in file.code.matches(of: declaration) {
        if let name = match.output[1].substring { layerOfType[String(name)] = file.folder }
      }
    }
    #expect(layerOfType["SampleStore"] == "Storage" && layerOfType["SampleLog"] == "Log")
    let identifier = try Regex(#"\b[A-Z][A-Za-z0-9_]*\b"#)
    var violations: [String] = []
    for file in files where !file.folder.isEmpty {
      guard let own = Self.layers.firstIndex(of: file.folder) else { continue }
      var seen: Set<String> = []
      for match in file.code.matches(of: identifier) {
        let name = String(file.code[match.range])
        guard seen.insert(name).inserted, let layer = layerOfType[name],
          let rank = Self.layers.firstIndex(of: layer), rank > own
        else { continue }
        violations.append("\(file.path) uses \(name) from \(layer)/")
      }
    }
    #expect(violations.isEmpty, Comment(rawValue: violations.joined(separator: "\n")))
  }
}
