import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The top-level records of an export as Foundation's `XMLParser` (libxml2)
/// reads them: each `<Record>`'s attributes by name and its metadata entries in
/// order. No StepKit code reads anything here: it is the independent reference
/// of HealthExportTests and of stepkitTests, one file that stepkitTests links
/// through a symbolic link (as `SanitizerRun.swift` is shared).
final class ReferenceXMLRecords: NSObject, XMLParserDelegate {
  /// One top-level `<Record>`.
  struct Record {
    var attributes: [String: String]
    var metadata: [(key: String, value: String)] = []
  }

  private var records: [Record] = []
  private var depth = 0
  private var current: Record?
  private let restoresSpaces: Bool

  private init(restoresSpaces: Bool) {
    self.restoresSpaces = restoresSpaces
  }

  /// The records of `text`, in order. With `spacedNames`, attribute names
  /// with spaces (iOS 8's, which XML does not allow) are read with `_` for
  /// each space and turned back afterwards.
  static func read(_ text: String, spacedNames: Bool = false) throws -> [Record] {
    var text = text
    // swift-corelibs-foundation's XMLParser crashes on the `<!ATTLIST …>` of an
    // export's internal DTD: it is cut out as text first (it declares, it holds no records).
    if let doctype = text.range(of: "<!DOCTYPE"),
      let end = text.range(of: "]>", range: doctype.upperBound..<text.endIndex)
    {
      text.removeSubrange(doctype.lowerBound..<end.upperBound)
    }
    if spacedNames {
      let spaced = try NSRegularExpression(pattern: #" ([A-Za-z]+(?: [A-Za-z]+)+)=""#)
      while let match = spaced.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
        let range = Range(match.range(at: 1), in: text)
      {
        text.replaceSubrange(range, with: text[range].replacingOccurrences(of: " ", with: "_"))
      }
    }
    let reader = ReferenceXMLRecords(restoresSpaces: spacedNames)
    let parser = XMLParser(data: Data(text.utf8))
    parser.delegate = reader
    guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    return reader.records
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    depth += 1
    if depth == 2, name == "Record" {
      guard restoresSpaces else {
        current = Record(attributes: attributes)
        return
      }
      var restored: [String: String] = [:]
      for (key, value) in attributes { restored[key.replacingOccurrences(of: "_", with: " ")] = value }
      current = Record(attributes: restored)
    } else if depth == 3, name == "MetadataEntry", current != nil {
      current?.metadata.append((attributes["key"] ?? "", attributes["value"] ?? ""))
    }
  }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?)
  {
    if depth == 2, let current {
      records.append(current)
      self.current = nil
    }
    depth -= 1
  }
}
