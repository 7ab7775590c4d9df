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
  /// The default class of each source for `kind`, in ``sourceNames`` order
  /// (COUNTING.md, step 2: decided by the source's samples of that kind alone).
  ///
  /// Typed-in when every sample of the kind is user-entered; Apple Watch or
  /// iPhone by the devices those samples carry, or by the source's name when
  /// none carries a model or hardware identifier; otherwise other. A source
  /// with no sample of `kind` takes its class from the other kind, so that it
  /// reads the same everywhere.
  ///
  /// - Parameter kind: Steps or distance.
  /// - Returns: One class per source.
  public func sourceClasses(for kind: QuantityKind) -> [SourceClass] {
    let other: QuantityKind = kind == .steps ? .distance : .steps
    /// What a source's samples of one kind say about it.
    struct Evidence {
      var samples = 0
      var userEntered = 0
      var identifiesHardware = false
      var watch = false
      var phone = false
    }
    // [kind.rawValue][source], gathered from the origins.
    var evidence = [[Evidence]](
      repeating: [Evidence](repeating: Evidence(), count: sourceFacts.count), count: 2)
    for origin in originTable.indices {
      let source = Int(originSource[origin])
      let device = originTable[origin].device
      for sampled in QuantityKind.allCases {
        let at = 4 * origin + 2 * Int(sampled.rawValue)
        let samples = originSampleCounts[at] + originSampleCounts[at + 1]
        guard samples > 0 else { continue }
        let k = Int(sampled.rawValue)
        evidence[k][source].samples += samples
        evidence[k][source].userEntered += originSampleCounts[at + 1]
        if let device, device.identifiesHardware {
          evidence[k][source].identifiesHardware = true
          if device.isAppleWatch { evidence[k][source].watch = true }
          if device.isIPhone { evidence[k][source].phone = true }
        }
      }
    }
    return sourceFacts.indices.map { source in
      let facts = sourceFacts[source]
      let deciding = evidence[Int(kind.rawValue)][source].samples > 0 ? kind : other
      let found = evidence[Int(deciding.rawValue)][source]
      if found.samples > 0 && found.userEntered == found.samples { return .typedIn }
      if found.identifiesHardware {
        if found.watch { return .appleWatch }
        if found.phone { return .iPhone }
        return .other
      }
      if facts.name.contains("Apple Watch") { return .appleWatch }
      if facts.name.contains("iPhone") { return .iPhone }
      return .other
    }
  }
}
