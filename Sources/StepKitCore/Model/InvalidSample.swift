/// Where an input record came from: a file and a line and column in it, or a
/// byte offset, or a free description (a HealthKit sample's UUID).
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
  /// The file (or archive entry, `export.zip:apple_health_export/export.xml`).
  public var file: String
  /// The 1-based line, when known.
  public var line: Int?
  /// The 1-based column, when known.
  public var column: Int?
  /// The byte offset into the file or entry, when known.
  public var byteOffset: Int64?

  /// Creates a location.
  public init(file: String, line: Int? = nil, column: Int? = nil, byteOffset: Int64? = nil) {
    self.file = file
    self.line = line
    self.column = column
    self.byteOffset = byteOffset
  }

  /// `file:line:column`, or `file (byte N)`, as compilers print locations.
  public var description: String {
    var text = file
    if let line {
      text += ":\(line)"
      if let column { text += ":\(column)" }
    } else if let byteOffset {
      text += " (byte \(byteOffset))"
    }
    return text
  }
}

/// A sample that was not counted, and why.
public struct InvalidSample: Hashable, Sendable, CustomStringConvertible {
  /// Why a sample is invalid.
  public enum Reason: Hashable, Sendable, CustomStringConvertible {
    /// The end lies before the start.
    case endBeforeStart
    /// The value is negative.
    case negativeValue
    /// The value is NaN or infinite.
    case nonFiniteValue
    /// A date could not be parsed; carries the text.
    case unparsableDate(String)
    /// A value could not be parsed; carries the text.
    case unparsableValue(String)
    /// A distance unit that is not a length; carries the unit.
    case unknownUnit(String)
    /// A required attribute is missing; carries its name.
    case missingAttribute(String)
    /// The sample lies outside what the engine can store (before 1970 by more
    /// than 290 million years, or a UTC offset beyond ±34 hours).
    case outOfRange
    /// The sample starts after the export that holds it was made: a device
    /// clock was wrong (COUNTING.md, Inputs).
    case startsAfterExport
    /// The sample starts before 2000, years before HealthKit (2014) and
    /// before the history apps import into it: a device clock was wrong
    /// (COUNTING.md, Inputs).
    case startsBeforeHealthKit
    /// The value is more than ``SampleLog/mostPlausiblePerMinute`` steps (or
    /// metres) a minute of the sample's time, an instant taken as a minute:
    /// no walk, a corrupt or forged record (COUNTING.md, Inputs).
    case implausibleValue
    /// A step sample whose unit is not a count; carries the unit.
    case notACount(String)
    /// The sample's source and device would be origin 65,537: the log holds
    /// at most ``SampleLog/maximumOrigins``.
    case tooManySources
    /// The record (or one of its metadata entries) has an attribute of this
    /// name twice: XML allows each name once in a tag, and a reader taking
    /// either one would guess.
    case duplicateAttribute(String)

    /// A short English description.
    public var description: String {
      switch self {
      case .endBeforeStart: return "end date before start date"
      case .negativeValue: return "negative value"
      case .nonFiniteValue: return "value is not a finite number"
      case .unparsableDate(let text): return "unreadable date '\(text)'"
      case .unparsableValue(let text): return "unreadable value '\(text)'"
      case .unknownUnit(let unit): return "unit '\(unit)' is not a length"
      case .missingAttribute(let name): return "missing attribute '\(name)'"
      case .outOfRange: return "date or offset out of range"
      case .startsAfterExport: return "starts after the export date, a wrong device clock"
      case .startsBeforeHealthKit: return "starts before 2000, years before HealthKit, a wrong device clock"
      case .implausibleValue: return "more than 1,000,000 a minute, not a walk"
      case .notACount(let unit): return "unit '\(unit)' is not a step count"
      case .tooManySources:
        return "one source or device more than the 65,536 an export may hold"
      case .duplicateAttribute(let name): return "attribute '\(name)' appears twice"
      }
    }
  }

  /// Why the sample was not counted.
  public var reason: Reason
  /// Where it came from, when known.
  public var location: SourceLocation?

  /// Creates a report entry.
  public init(reason: Reason, location: SourceLocation?) {
    self.reason = reason
    self.location = location
  }

  /// `location: reason`.
  public var description: String {
    if let location { return "\(location): \(reason)" }
    return reason.description
  }
}

/// Invalid samples: how many, and the first few with their locations.
public struct InvalidSampleReport: Hashable, Sendable {
  /// How many locations the report keeps.
  public static let keptExamples = 20
  /// How many samples were invalid.
  public private(set) var count: Int = 0
  /// The first ``keptExamples`` invalid samples, in the order they were seen.
  public private(set) var examples: [InvalidSample] = []

  /// An empty report.
  public init() {}

  /// Counts one invalid sample, keeping it as an example while there is room.
  public mutating func record(_ sample: @autoclosure () -> InvalidSample) {
    count += 1
    if examples.count < Self.keptExamples { examples.append(sample()) }
  }

  /// Adds another report's counts and examples to this one, as if its
  /// invalid samples had been recorded here one by one after this one's.
  ///
  /// - Parameters:
  ///   - other: The report to add.
  ///   - relocate: Applied to the location of every example taken from
  ///     `other` (a stretch of a file counts its lines from its own start).
  public mutating func merge(
    _ other: InvalidSampleReport, relocating relocate: (SourceLocation) -> SourceLocation = { $0 }
  ) {
    count += other.count
    for example in other.examples where examples.count < Self.keptExamples {
      examples.append(InvalidSample(reason: example.reason, location: example.location.map(relocate)))
    }
  }

  /// Whether nothing was invalid.
  public var isEmpty: Bool { count == 0 }
}
