/// A JSON value that keeps its keys in the order they were written, so the
/// output reads well and is the same on every run.
///
/// Foundation's `JSONEncoder` is not used on purpose: the documented output
/// keeps the contract's column order (`date, steps, distance_m, …`, where
/// `.sortedKeys` would put `date` after `distance_m`), prints a day as one
/// line (`.prettyPrinted` spends a line on every field, seven times the
/// lines), writes absent values as explicit `null`s (synthesized `Encodable`
/// leaves them out), and a cohort is streamed one export at a time, each
/// rendered at its depth inside the `exports` array, so memory does not grow
/// with the number of exports. The tests parse every JSON output with
/// `JSONSerialization`.
indirect enum JSONValue: Equatable, Sendable {
  case object([(String, JSONValue)])
  case array([JSONValue])
  case string(String)
  case integer(Int64)
  /// A number written with `digits` decimals (`1234.5`).
  case decimal(Double, digits: Int)
  /// A number given in units of its last decimal, written with `digits` decimals
  /// (`scaled(12345, digits: 1)` is `1234.5`): a total of rows printed as ``decimal(_:digits:)``.
  case scaled(Int64, digits: Int)
  case bool(Bool)
  case null

  static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered() == rhs.rendered() }

  /// An integer, or `null` for `nil`.
  static func integer(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }

  /// A string, or `null` for `nil`.
  static func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

  /// The value as text, two-space indented; arrays of scalars and objects of
  /// scalars stay on one line so that a day reads as one line.
  func rendered(indent: Int = 0) -> String {
    switch self {
    case .string(let text): return Self.quoted(text)
    case .integer(let value): return String(value)
    case .decimal(let value, let digits): return TextFormatting.fixed(value, digits: digits)
    case .scaled(let value, let digits): return TextFormatting.fixed(scaled: value, digits: digits)
    case .bool(let value): return value ? "true" : "false"
    case .null: return "null"
    case .array(let items):
      if items.isEmpty { return "[]" }
      if items.allSatisfy(\.isFlat) {
        return "[" + items.map { $0.rendered() }.joined(separator: ", ") + "]"
      }
      let inner = String(repeating: " ", count: indent + 2)
      return "[\n" + items.map { inner + $0.rendered(indent: indent + 2) }.joined(separator: ",\n")
        + "\n" + String(repeating: " ", count: indent) + "]"
    case .object(let members):
      if members.isEmpty { return "{}" }
      if isFlat {
        return "{" + members.map { Self.quoted($0.0) + ": " + $0.1.rendered() }.joined(separator: ", ") + "}"
      }
      let inner = String(repeating: " ", count: indent + 2)
      return "{\n"
        + members.map { inner + Self.quoted($0.0) + ": " + $0.1.rendered(indent: indent + 2) }
        .joined(separator: ",\n")
        + "\n" + String(repeating: " ", count: indent) + "}"
    }
  }

  /// Scalars, and objects or arrays holding only scalars.
  private var isFlat: Bool {
    switch self {
    case .object(let members): return members.allSatisfy { $0.1.isScalar || $0.1.isScalarArray }
    case .array(let items): return items.allSatisfy(\.isScalar)
    default: return true
    }
  }

  private var isScalar: Bool {
    switch self {
    case .object, .array: return false
    default: return true
    }
  }

  private var isScalarArray: Bool {
    if case .array(let items) = self { return items.allSatisfy(\.isScalar) }
    return false
  }

  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
