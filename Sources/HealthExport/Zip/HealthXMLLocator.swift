/// Finds the entry of an export.zip that holds the Health export XML.
///
/// The name depends on the phone's language (`export.xml`, `导出.xml`,
/// `輸出.xml`, …), so entries are recognised by content: the first bytes of
/// every `.xml` entry (except the clinical `export_cda.xml`) are inflated and
/// checked for `<!DOCTYPE HealthData` or `<HealthData`, after an optional byte
/// order mark, XML declaration, comments and white space.
enum HealthXMLLocator {
  /// How many leading bytes of a candidate are inspected.
  static let sniffLength = 16 * 1024

  /// Names Health is known to use, tried first (cheap when the archive is large).
  private static let knownNames: Set<String> = ["export.xml", "导出.xml", "輸出.xml", "输出.xml", "匯出.xml"]

  /// The entry holding the Health export.
  ///
  /// - Throws: ``HealthExportError/noHealthExportXML(path:entries:)`` listing the
  ///   entries when none qualifies; the first read error met instead, when a
  ///   candidate could not be read at all.
  static func healthExportEntry(in archive: ZipArchive) throws -> ZipEntry {
    let candidates = archive.entries.filter(isCandidate)
    let ordered =
      candidates.filter { knownNames.contains($0.baseName.lowercased()) }
      + candidates.filter { !knownNames.contains($0.baseName.lowercased()) }
    var firstError: HealthExportError?
    for entry in ordered {
      do {
        if try looksLikeHealthExport(entry, in: archive) { return entry }
      } catch {
        if firstError == nil { firstError = HealthExportError(wrapping: error, path: archive.displayName) }
      }
    }
    if let firstError { throw firstError }
    throw HealthExportError.noHealthExportXML(path: archive.displayName, entries: archive.entries.map(\.name))
  }

  /// The names of the entries other than `chosen` that hold a Health export
  /// too (a second `export.xml` in another folder, say), in the order
  /// ``healthExportEntry(in:)`` would try them; entries that cannot be read are left out.
  static func otherHealthExportEntries(in archive: ZipArchive, besides chosen: ZipEntry) -> [String] {
    archive.entries.filter(isCandidate).filter { entry in
      entry.centralDirectoryOffset != chosen.centralDirectoryOffset
        && ((try? looksLikeHealthExport(entry, in: archive)) ?? false)
    }.map(\.name)
  }

  /// Whether an entry is worth inspecting: an `.xml` file that is not
  /// `export_cda.xml` nor macOS resource-fork debris.
  static func isCandidate(_ entry: ZipEntry) -> Bool {
    let base = entry.baseName.lowercased()
    return !entry.isDirectory && base.hasSuffix(".xml") && base != "export_cda.xml"
      && !base.hasPrefix("._") && !entry.name.hasPrefix("__MACOSX/")
  }

  private static func looksLikeHealthExport(_ entry: ZipEntry, in archive: ZipArchive)
    throws -> Bool
  {
    let reader = try ZipEntryReader(
      archive: archive, entry: entry, verifiesChecksum: false, inputChunkSize: 64 * 1024)
    var head = [UInt8](repeating: 0, count: sniffLength)
    let result = head.withUnsafeMutableBytes { buffer in
      Result { () throws -> Int in try reader.read(into: buffer) }
    }
    let count = try result.get()
    return startsHealthExport(head[..<count])
  }

  /// Whether `head` begins a Health export document.
  static func startsHealthExport(_ head: ArraySlice<UInt8>) -> Bool {
    var index = head.startIndex
    let end = head.endIndex
    if head.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }

    func skipSpace() {
      while index < end,
        head[index] == 0x20 || head[index] == 0x09 || head[index] == 0x0A || head[index] == 0x0D
      {
        index += 1
      }
    }
    func hasPrefix(_ text: String) -> Bool {
      head[index...].starts(with: text.utf8)
    }
    /// Moves past `terminator`; `false` when it does not occur.
    func skip(past terminator: String) -> Bool {
      let pattern = Array(terminator.utf8)
      var probe = index
      while probe + pattern.count <= end {
        if head[probe..<probe + pattern.count].elementsEqual(pattern) {
          index = probe + pattern.count
          return true
        }
        probe += 1
      }
      return false
    }

    while true {
      skipSpace()
      if hasPrefix("<?") {
        guard skip(past: "?>") else { return false }
      } else if hasPrefix("<!--") {
        guard skip(past: "-->") else { return false }
      } else {
        break
      }
    }
    for opener in ["<!DOCTYPE HealthData", "<HealthData"] where hasPrefix(opener) {
      let after = index + opener.utf8.count
      guard after < end else { return true }
      switch head[after] {
      case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "["), UInt8(ascii: ">"), UInt8(ascii: "/"): return true
      default: return false
      }
    }
    return false
  }
}
