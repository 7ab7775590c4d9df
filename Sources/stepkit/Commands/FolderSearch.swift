import Foundation
import HealthExport

/// The exports in a folder (`stepkit steps cohort/`), and what was left out and why.
///
/// A file is taken when it is an Apple Health export by its content, whatever its name
/// (`p001.zip`, `export.xml`, `导出.xml`, `輸出.xml`, an unpacked `apple_health_export/`): an
/// `.xml` file whose opening holds `<HealthData` (after its DTD), or a `.zip` holding such an
/// entry. A damaged `.zip` is taken too when its name says it is an export (`export.zip`), so
/// that the run reports it as unreadable. Other `.xml` and `.zip` files are skipped and listed;
/// files with other extensions (workout routes, electrocardiograms) and Apple's `export_cda.xml`
/// are passed over. Folders are
/// searched at any depth, symbolic links followed, hidden ones left out; a link back to a folder
/// it lies in (a file-system loop) is reported, not followed.
struct FolderSearch {
  /// A file or folder left out, and why.
  struct Skipped: Equatable {
    /// The path, under the folder searched.
    var path: String
    /// Why (`not an Apple Health export`).
    var reason: String
  }

  /// The exports, sorted by path.
  var exports: [String] = []
  /// The `.xml` and `.zip` files that are not exports, and the loops, in path order.
  var skipped: [Skipped] = []

  /// How much of an `.xml` file is read to find `<HealthData`: Apple's DTD before it is about 10 KB.
  static let sniffedBytes = 1 << 16

  /// Searches `folder`.
  init(folder: String) {
    let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
    var visited: [FileID: String] = [:]
    if let id = FileID(base) { visited[id] = base }
    walk(base, ancestors: FileID(base).map { [$0] } ?? [], visited: &visited)
    exports.sort()
  }

  /// One line per left-out entry, for standard error; empty when nothing was.
  func notes(folder: String) -> [String] {
    guard !skipped.isEmpty else { return [] }
    let noun = skipped.count == 1 ? "entry" : "entries"
    return ["stepkit: \(skipped.count) \(noun) of \(folder) left out:\n"]
      + skipped.map { "  \($0.path): \($0.reason)\n" }
  }

  /// A file's device and inode: the same folder reached by two paths has one.
  struct FileID: Hashable {
    var device: UInt64
    var inode: UInt64

    init?(_ path: String) {
      var info = stat()
      guard stat(path, &info) == 0 else { return nil }
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
    }
  }

  private mutating func walk(_ folder: String, ancestors: [FileID], visited: inout [FileID: String]) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
      skipped.append(Skipped(path: folder, reason: "cannot be listed (check its permissions)"))
      return
    }
    for name in names.sorted() where !name.hasPrefix(".") {
      let path = folder + "/" + name
      let kind = Platform.fileKind(path).kind
      switch kind {
      case .directory:
        guard let id = FileID(path) else { continue }
        if ancestors.contains(id) {
          let target = Platform.resolvedPath(path) ?? visited[id] ?? "a folder above it"
          skipped.append(
            Skipped(path: path, reason: "a file-system loop (it leads back to \(target)); not followed"))
        } else if let earlier = visited[id] {
          skipped.append(Skipped(path: path, reason: "the same folder as \(earlier); searched once"))
        } else {
          visited[id] = path
          walk(path, ancestors: ancestors + [id], visited: &visited)
        }
      case .regular:
        let lowercased = name.lowercased()
        if lowercased == "export_cda.xml" {
          continue  // The clinical documents beside every export.xml.
        } else if lowercased.hasSuffix(".xml") {
          if Self.isHealthXML(path) {
            exports.append(path)
          } else {
            skipped.append(
              Skipped(path: path, reason: "not an Apple Health export (no <HealthData> element)"))
          }
        } else if lowercased.hasSuffix(".zip") {
          switch Self.zipKind(path, name: lowercased) {
          case .export: exports.append(path)
          case .other:
            skipped.append(Skipped(path: path, reason: "a zip without an Apple Health export in it"))
          case .unreadable: skipped.append(Skipped(path: path, reason: "not a readable zip archive"))
          }
        }
      case .missing:
        if Platform.fileKind(path, followingLinks: false).kind == .symbolicLink {
          skipped.append(Skipped(path: path, reason: "a symbolic link to nothing"))
        }
      default:
        continue
      }
    }
  }

  /// Whether the file's opening holds the root element of a Health export.
  static func isHealthXML(_ path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: sniffedBytes) else { return false }
    let marker = Array("<HealthData".utf8)
    return data.withUnsafeBytes { bytes in
      guard bytes.count >= marker.count else { return false }
      var index = 0
      while index + marker.count <= bytes.count {
        if bytes[index] == marker[0], bytes[index..<(index + marker.count)].elementsEqual(marker) {
          return true
        }
        index += 1
      }
      return false
    }
  }

  enum ZipKind { case export, other, unreadable }

  /// Whether the zip at `path` holds a Health export XML; a damaged zip named like an export counts as one.
  static func zipKind(_ path: String, name: String) -> ZipKind {
    let archive: ExportArchive
    do {
      archive = try ExportArchive(path: path)
    } catch {
      return ["export.zip", "导出.zip", "輸出.zip"].contains(name) ? .export : .unreadable
    }
    do {
      _ = try archive.healthExportEntry()
      return .export
    } catch HealthExportError.noHealthExportXML {
      return .other
    } catch {
      // An entry that cannot be inflated: the reading reports the damage.
      return .export
    }
  }
}
