/// The byte that begins every encoded sample in a ``SampleStore`` block: what
/// kind of sample it is, and which fields follow it and in what form.
///
/// The one place its bits are spelled out; the encoder
/// (`SampleStore.encode`), the decoder (`SampleStore.decode`) and the join
/// that renumbers origins in place (`SampleStore.appendPatched`) all read and
/// write it through these names.
///
/// | bit | meaning |
/// |---|---|
/// | 0 | ``distance`` (else steps) |
/// | 1 | ``userEntered`` |
/// | 2 | ``originFollows``: the origin differs from the previous sample's; a varint follows |
/// | 3 | ``offsetFollows``: the UTC offset differs; a zigzag varint of minutes follows |
/// | 4 | ``milliseconds``: start and duration in milliseconds (else whole seconds, the export's precision) |
/// | 5–6 | the ``ValueForm`` |
/// | 7 | ``sameDuration``: the duration equals the previous sample's (else a varint follows) |
struct SampleHeader: OptionSet {
  let rawValue: UInt8

  @inline(__always)
  init(rawValue: UInt8) { self.rawValue = rawValue }

  /// A distance sample (else steps).
  static let distance = SampleHeader(rawValue: 1 << 0)
  /// The sample was typed in by hand.
  static let userEntered = SampleHeader(rawValue: 1 << 1)
  /// The origin differs from the previous sample's: a varint of it follows.
  static let originFollows = SampleHeader(rawValue: 1 << 2)
  /// The UTC offset differs from the previous sample's: a zigzag varint of minutes follows.
  static let offsetFollows = SampleHeader(rawValue: 1 << 3)
  /// Start and duration are written in milliseconds, not whole seconds.
  static let milliseconds = SampleHeader(rawValue: 1 << 4)
  /// The duration equals the previous sample's, and is not written.
  static let sameDuration = SampleHeader(rawValue: 1 << 7)

  /// Where the ``ValueForm`` sits: bits 5 and 6.
  static let valueFormShift: UInt8 = 5
  static let valueFormMask: UInt8 = 0b11 << valueFormShift

  /// How a sample's value is written after its times.
  enum ValueForm: UInt8 {
    /// A varint of the whole number (steps, nearly always).
    case integer = 0
    /// A varint mantissa at the scale of the block's previous decimal.
    case decimalAtPreviousScale = 1
    /// A scale byte (digits in bits 0–3, unit factor in bits 4–6), then a varint mantissa.
    case decimalWithScale = 2
    /// The `Double`'s eight bytes, little-endian.
    case double = 3
  }

  /// The header of a steps or distance sample, typed in or not; the other bits clear.
  @inline(__always)
  init(distance: Bool, userEntered: Bool) {
    rawValue = (distance ? Self.distance.rawValue : 0) | (userEntered ? Self.userEntered.rawValue : 0)
  }

  /// How the value is written.
  @inline(__always)
  var valueForm: ValueForm {
    get { ValueForm(rawValue: (rawValue & Self.valueFormMask) >> Self.valueFormShift).unsafelyUnwrapped }
    set {
      self = SampleHeader(rawValue: rawValue & ~Self.valueFormMask | newValue.rawValue << Self.valueFormShift)
    }
  }
}
