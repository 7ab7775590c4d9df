/// How sources are ordered for the merge: the default classes, optionally
/// preceded by an explicit order of source names.
public struct SourceRanking: Sendable, Hashable {
  /// Source names that come first, in this order; the rest follow by default rank.
  public var explicitOrder: [String]

  /// The default ranking (typed-in entries, Apple Watch, iPhone, others; then by name).
  public static let `default` = SourceRanking(explicitOrder: [])

  /// A ranking that puts `explicitOrder` first.
  public init(explicitOrder: [String]) { self.explicitOrder = explicitOrder }

  /// Ranks sources.
  ///
  /// - Parameter sources: Each source's name and class.
  /// - Returns: For each input position, its rank (0 = highest priority).
  public func ranks(of sources: [(name: String, sourceClass: SourceClass)]) -> [Int] {
    var explicitPosition: [String: Int] = [:]
    for (position, name) in explicitOrder.enumerated() where explicitPosition[name] == nil {
      explicitPosition[name] = position
    }
    let order = sources.indices.sorted { a, b in
      let pa = explicitPosition[sources[a].name]
      let pb = explicitPosition[sources[b].name]
      switch (pa, pb) {
      case (let x?, let y?): return x < y
      case (.some, nil): return true
      case (nil, .some): return false
      case (nil, nil):
        if sources[a].sourceClass != sources[b].sourceClass {
          return sources[a].sourceClass < sources[b].sourceClass
        }
        return Self.scalarOrder(sources[a].name, sources[b].name)
      }
    }
    var ranks = [Int](repeating: 0, count: sources.count)
    for (rank, index) in order.enumerated() { ranks[index] = rank }
    return ranks
  }

  /// Ascending Unicode scalar order, as COUNTING.md specifies (not `String`'s
  /// locale-free but normalising `<`).
  static func scalarOrder(_ a: String, _ b: String) -> Bool {
    a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) { $0.value < $1.value }
  }
}

extension SampleLog {
  /// The default class of each source, in ``sourceNames`` order.
  ///
  /// Typed-in when every sample is user-entered; Apple Watch or iPhone by the
  /// devices its samples carry, or by its name when none carries a model or
  /// hardware identifier; otherwise other.
  public var sourceClasses: [SourceClass] {
    sourceFacts.map { facts in
      if facts.samples > 0 && facts.userEntered == facts.samples { return .typedIn }
      if facts.hasHardwareInfo {
        if facts.hasWatch { return .appleWatch }
        if facts.hasPhone { return .iPhone }
        return .other
      }
      if facts.name.contains("Apple Watch") { return .appleWatch }
      if facts.name.contains("iPhone") { return .iPhone }
      return .other
    }
  }
}
