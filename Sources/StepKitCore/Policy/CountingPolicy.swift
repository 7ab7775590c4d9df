/// Which samples take part in the merge (COUNTING.md, step 1).
public enum CountingPolicy: String, Sendable, Hashable, CaseIterable, Codable {
  /// Leave out samples typed in by hand; keep everything else. The default.
  case health
  /// Also leave out every source that is not an Apple Watch or an iPhone:
  /// what a step-reward app trusts, since any app can write steps.
  case device
  /// Keep everything, typed-in samples too (still deduplicated).
  case all

  /// Whether a sample of `sourceClass` with the given user-entered flag takes part.
  @inlinable
  public func admits(userEntered: Bool, sourceClass: SourceClass) -> Bool {
    switch self {
    case .all: return true
    case .health: return !userEntered
    case .device:
      return !userEntered && (sourceClass == .appleWatch || sourceClass == .iPhone)
    }
  }
}

/// The default ranking class of a source (COUNTING.md, step 2), highest first.
public enum SourceClass: Int, Sendable, Hashable, Comparable, CaseIterable, Codable,
  CustomStringConvertible
{
  /// Every sample of the source was typed in by hand (the Health app itself).
  case typedIn = 1
  /// An Apple Watch.
  case appleWatch = 2
  /// An iPhone.
  case iPhone = 3
  /// Any other app or device.
  case other = 4

  /// Orders by ascending value.
  public static func < (lhs: SourceClass, rhs: SourceClass) -> Bool {
    lhs.rawValue < rhs.rawValue
  }

  /// `typed-in`, `Apple Watch`, `iPhone` or `other`.
  public var description: String {
    switch self {
    case .typedIn: return "typed-in"
    case .appleWatch: return "Apple Watch"
    case .iPhone: return "iPhone"
    case .other: return "other"
    }
  }
}
