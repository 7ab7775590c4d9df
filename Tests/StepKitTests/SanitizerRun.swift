import Foundation
import Testing

/// How the suite is being run: as it is, or under a sanitizer (`.ci/run` sets
/// `STEPKIT_SANITIZER` to `thread` or `address` for its tsan and asan stages).
///
/// Under a sanitizer every instruction costs several times more, and on two cores a few heavy
/// tests can hold both of the cooperative pool's threads for minutes, so the tests that guard
/// against hangs allow more time there, and the heaviest loops sample their cases.
/// (One file, linked into each test target that needs it.)
enum SanitizerRun {
  /// `thread`, `address`, or `nil` for a run without a sanitizer.
  static let name = ProcessInfo.processInfo.environment["STEPKIT_SANITIZER"]

  /// Whether a sanitizer is on.
  static var isActive: Bool { name != nil }

  /// The stride through a test's cases: every case without a sanitizer, every `thread`th one
  /// under ThreadSanitizer, every `address`th one under AddressSanitizer.
  static func step(thread: Int, address: Int) -> Int {
    switch name {
    case "thread": thread
    case "address": address
    default: 1
    }
  }
}

extension Trait where Self == TimeLimitTrait {
  /// A limit that catches a hang, not a slow machine: `minutes` as it is, 30 minutes under a
  /// sanitizer (where the cooperative pool may be busy with other suites for longer than a
  /// test itself takes).
  static func hangLimit(minutes: Int = 1) -> Self {
    .timeLimit(.minutes(SanitizerRun.isActive ? 30 : minutes))
  }
}
