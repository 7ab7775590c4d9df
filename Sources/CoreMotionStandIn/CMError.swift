// swift-format-ignore-file: AlwaysUseLowerCamelCase
// The names are CoreMotion's own: the stand-in mirrors the SDK's global constants.

import Foundation

/// A CoreMotion error code, as Swift imports the plain C `typedef enum CMError` of `CMError.h`.
///
/// The real import is a `RawRepresentable` struct with one global constant per code
/// (``CMErrorMotionActivityNotAuthorized`` and so on); errors arrive as `NSError`s in
/// ``CMErrorDomain`` whose `code` is `Int(rawValue)`.
public struct CMError: RawRepresentable, Equatable, Hashable, Sendable {
  /// The numeric code (100 and up).
  public var rawValue: UInt32

  /// Creates the code with the given numeric value.
  /// - Parameter rawValue: The numeric code.
  public init(_ rawValue: UInt32) {
    self.rawValue = rawValue
  }

  /// Creates the code with the given numeric value.
  /// - Parameter rawValue: The numeric code.
  public init(rawValue: UInt32) {
    self.rawValue = rawValue
  }
}

/// The error domain of CoreMotion's `NSError`s.
public let CMErrorDomain: String = "CMErrorDomain"

/// No error (100).
public var CMErrorNULL: CMError { CMError(100) }
/// The device must move before the operation can complete (101).
public var CMErrorDeviceRequiresMovement: CMError { CMError(101) }
/// True north is not available (102).
public var CMErrorTrueNorthNotAvailable: CMError { CMError(102) }
/// An unknown error (103).
public var CMErrorUnknown: CMError { CMError(103) }
/// Motion activity is not available on this device (104).
public var CMErrorMotionActivityNotAvailable: CMError { CMError(104) }
/// The app is not authorized to read motion activity (105).
public var CMErrorMotionActivityNotAuthorized: CMError { CMError(105) }
/// The app lacks the entitlement for motion activity (106).
public var CMErrorMotionActivityNotEntitled: CMError { CMError(106) }
/// An invalid parameter was given (107).
public var CMErrorInvalidParameter: CMError { CMError(107) }
/// The action is invalid in the current state (108).
public var CMErrorInvalidAction: CMError { CMError(108) }
/// The feature is not available (109).
public var CMErrorNotAvailable: CMError { CMError(109) }
/// The app is not entitled (110).
public var CMErrorNotEntitled: CMError { CMError(110) }
/// The app is not authorized (111).
public var CMErrorNotAuthorized: CMError { CMError(111) }
/// The data was nil (112).
public var CMErrorNilData: CMError { CMError(112) }
/// A size was wrong (113).
public var CMErrorSize: CMError { CMError(113) }
