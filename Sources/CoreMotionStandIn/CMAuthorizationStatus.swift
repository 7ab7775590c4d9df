/// Whether the app may read motion data (CoreMotion's `CMAuthorizationStatus`, iOS 11).
///
/// Mirrors the `NS_ENUM(NSInteger)` of `CMAuthorization.h`, so the raw values match the device.
public enum CMAuthorizationStatus: Int, Sendable {
  /// The user has not been asked yet; the system asks on the first pedometer query.
  case notDetermined = 0
  /// System-wide restrictions (parental controls, a management profile) forbid access.
  case restricted = 1
  /// The user refused access (Settings > Privacy & Security > Motion & Fitness).
  case denied = 2
  /// The user allowed access.
  case authorized = 3
}
