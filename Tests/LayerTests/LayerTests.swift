import Foundation
import Testing

/// Each library's folders are layers (docs/READING.md, "Where the code lives"):
/// a folder uses only the types of the folders below it, and the files at the
/// top of a library (the error type, the platform calls) are leaves that use no
/// folder. Read from the sources themselves, so that a new dependency upwards
/// fails here rather than in a reviewer's head.
@Suite("Every library's folders use only the folders below them")
struct LayerTests {
  /// A library and its folders, bottom up.
  struct Library: Sendable, CustomTestStringConvertible {
    var name: String
    var layers: [String]
    /// Types that must be found in these folders (so that a renamed folder or a
    /// regular expression that stops matching cannot make the test pass by seeing nothing).
    var landmarks: [String: String]
    /// At least this many Swift files.
    var minimumFiles: Int

    var testDescription: String { name }

    static let all = [
      // `Language` holds the shared localized texts, which any layer may use.
      Library(
        name: "StepKitCore",
        layers: ["Language", "Model", "Storage", "Log", "Policy", "Buckets", "Merge", "Tally"],
        landmarks: ["SampleStore": "Storage", "SampleLog": "Log", "MergeBin": "Merge"], minimumFiles: 30),
      Library(
        name: "HealthExport",
        layers: ["Input", "Inflate", "Zip", "XML", "Records", "Parallel", "Export"],
        landmarks: [
          "ChunkLender": "Input", "RawDeflateDecoder": "Inflate", "ZipArchive": "Zip", "XMLScanner": "XML",
          "ExportDecoder": "Records", "ParallelExportReader": "Parallel", "ExportReader": "Export",
        ], minimumFiles: 30),
    ]

    var sources: URL {
      URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/\(name)")
    }

    /// Every Swift file of the library, by folder (`""` for the top level), with its code and no comments.
    func files() throws -> [(folder: String, path: String, code: String)] {
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
  }

  @Test("Every folder is a known layer, and no type is used from a layer above", arguments: Library.all)
  func layersPointDown(_ library: Library) throws {
    let files = try library.files()
    #expect(files.count >= library.minimumFiles, "found \(files.count) files under \(library.sources.path)")
    // Top-level declarations only: a nested type is named through its outer type,
    // and nested names (`Entry`, `Settings`) repeat across folders.
    let declaration = try Regex(
      #"(?m)^(?:(?:public|package|internal|private|fileprivate|final|@usableFromInline|@frozen|@_spi\([A-Za-z]+\))\s+)*(?:struct|class|enum|protocol|typealias|actor)\s+([A-Z][A-Za-z0-9_]*)"#
    )
    var layerOfType: [String: String] = [:]
    for file in files where !file.folder.isEmpty {
      #expect(library.layers.contains(file.folder), "\(file.path) is in a folder that is not a layer")
      for match in file.code.matches(of: declaration) {
        if let name = match.output[1].substring { layerOfType[String(name)] = file.folder }
      }
    }
    for (type, layer) in library.landmarks {
      #expect(layerOfType[type] == layer, "\(type) was expected in \(layer)/")
    }
    // Simple word boundaries: Unicode ones would read `XMLScanner.slack` as one word.
    let identifier = try Regex(#"\b[A-Z][A-Za-z0-9_]*\b"#).wordBoundaryKind(.simple)
    var violations: [String] = []
    for file in files {
      // A file at the top of the library is a leaf: it may use no folder at all.
      let own = file.folder.isEmpty ? -1 : library.layers.firstIndex(of: file.folder)
      guard let own else { continue }
      var seen: Set<String> = []
      for match in file.code.matches(of: identifier) {
        let name = String(file.code[match.range])
        guard seen.insert(name).inserted, let layer = layerOfType[name],
          let rank = library.layers.firstIndex(of: layer), rank > own
        else { continue }
        violations.append("\(file.path) uses \(name) from \(layer)/")
      }
    }
    #expect(violations.isEmpty, Comment(rawValue: violations.joined(separator: "\n")))
  }
}
