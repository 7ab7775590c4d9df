/// `--priority` names matched with the sources an export holds: an apostrophe or quotation mark
/// typed one way matches one written the other way (`Jonathan's iPhone` is Apple's
/// `Jonathan’s iPhone`), and a name no source has is an error naming the sources present, the
/// nearest one first.
enum PriorityNames {
  /// `name` with the curly and straight apostrophes and quotation marks made one.
  static func folded(_ name: String) -> String {
    var result = String.UnicodeScalarView()
    for scalar in name.unicodeScalars {
      switch scalar {
      case "\u{2019}", "\u{2018}", "\u{02BC}", "\u{201B}", "\u{2032}", "\u{FF07}": result.append("'")
      case "\u{201C}", "\u{201D}", "\u{201F}", "\u{2033}", "\u{FF02}": result.append("\"")
      default: result.append(scalar)
      }
    }
    return String(result)
  }

  /// The sources' own names for `names`, in the same order.
  ///
  /// - Parameters:
  ///   - names: The names given to `--priority`.
  ///   - sources: The source names the export holds.
  ///   - export: The export, for the message.
  /// - Returns: Each name as the export writes it.
  /// - Throws: ``UsageError`` for a name no source has (after folding apostrophes and quotes),
  ///   naming the nearest source and listing every one.
  static func resolve(_ names: [String], sources: [String], export: String) throws(UsageError) -> [String] {
    let resolved = matched(names, sources: sources)
    if let unknown = resolved.first(where: { !sources.contains($0) }) {
      throw UsageError(unknownMessage(unknown, sources: sources, export: export))
    }
    return resolved
  }

  /// Each of `names` as `sources` writes it where one matches after folding apostrophes and
  /// quotes; unchanged where none does (an export of a cohort without that source).
  static func matched(_ names: [String], sources: [String]) -> [String] {
    guard !names.isEmpty else { return names }
    var byFolded: [String: String] = [:]
    for source in sources where byFolded[folded(source)] == nil { byFolded[folded(source)] = source }
    return names.map { sources.contains($0) ? $0 : byFolded[folded($0)] ?? $0 }
  }

  /// `unknown --priority source 'Jonathans iPhone' in export.zip; did you mean 'Jonathan’s iPhone'?
  /// Its sources: Jonathan’s iPhone, Mi Fitness`
  static func unknownMessage(_ name: String, sources: [String], export: String) -> String {
    guard !sources.isEmpty else {
      return "unknown --priority source '\(name)': \(export) has no sources to rank"
    }
    let key = Array(folded(name).lowercased().unicodeScalars)
    let nearest = sources.min { a, b in
      let da = distance(key, Array(folded(a).lowercased().unicodeScalars))
      let db = distance(key, Array(folded(b).lowercased().unicodeScalars))
      return da != db ? da < db : a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }
    let listed = sources.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
    return "unknown --priority source '\(name)' in \(export); did you mean '\(nearest ?? "")'? "
      + "Its sources: " + listed.joined(separator: ", ")
  }

  /// The Levenshtein distance of `a` and `b` (insertions, deletions and substitutions).
  static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
        current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}
