import Foundation

/// Read access to the app's Info.plist, so that StepKit can check for the
/// usage descriptions the system requires before it asks for access.
///
/// Use ``MainBundleInfo`` in the app and ``DictionaryBundleInfo`` in tests.
public protocol BundleInfo: Sendable {
  /// The value of `key` in the Info.plist when it is a string.
  ///
  /// - Parameter key: An Info.plist key, such as `NSHealthShareUsageDescription`.
  /// - Returns: The string, or `nil` when the key is absent or not a string.
  func string(forInfoKey key: String) -> String?
}

extension BundleInfo {
  /// The keys of `keys` that are missing or hold only white space.
  ///
  /// - Parameter keys: Info.plist keys to look for.
  /// - Returns: The missing keys, in the order given.
  public func missingKeys(_ keys: [String]) -> [String] {
    keys.filter { key in
      guard let value = string(forInfoKey: key) else { return true }
      return value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }
  }

  /// Throws ``StepKitError/missingUsageDescription(key:)`` for the first of
  /// `keys` that is missing.
  ///
  /// - Parameter keys: Info.plist keys that must hold a description.
  /// - Throws: ``StepKitError/missingUsageDescription(key:)``.
  public func requireUsageDescriptions(_ keys: [String]) throws {
    if let missing = missingKeys(keys).first { throw StepKitError.missingUsageDescription(key: missing) }
  }
}

/// The running app's Info.plist (`Bundle.main`).
public struct MainBundleInfo: BundleInfo {
  /// Creates the live bundle information.
  public init() {}

  /// The value of `key` in `Bundle.main`'s Info.plist when it is a string.
  ///
  /// - Parameter key: An Info.plist key.
  /// - Returns: The string, or `nil`.
  public func string(forInfoKey key: String) -> String? {
    Bundle.main.object(forInfoDictionaryKey: key) as? String
  }
}

/// An Info.plist given as a dictionary: for tests and previews.
public struct DictionaryBundleInfo: BundleInfo {
  /// The Info.plist's string values.
  public var values: [String: String]

  /// Creates bundle information from `values`.
  ///
  /// - Parameter values: Info.plist keys and their string values.
  public init(_ values: [String: String]) { self.values = values }

  /// An Info.plist with every usage description StepKit needs.
  public static let complete = DictionaryBundleInfo([
    InfoPlistKey.healthShareUsageDescription: "Shows your daily steps.",
    InfoPlistKey.healthUpdateUsageDescription: "Saves your weight and height.",
    InfoPlistKey.motionUsageDescription: "Counts steps when Health is not available.",
  ])

  /// The value of `key` in ``values``.
  ///
  /// - Parameter key: An Info.plist key.
  /// - Returns: The string, or `nil`.
  public func string(forInfoKey key: String) -> String? { values[key] }
}
