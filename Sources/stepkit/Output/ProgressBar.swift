import Foundation

/// A one-line progress bar on standard error: bytes read, MB/s and the time left.
///
/// Drawn only when standard error is a terminal, `--quiet` is off and the input
/// is larger than ``threshold``; redrawn at most ten times a second.
final class ProgressBar: @unchecked Sendable {
  // Safe to share: the `let`s are constant (`write` is `@Sendable`); `lastDrawn` and `drawn` are
  // read and written only under `lock`.
  /// Inputs smaller than this are read without a bar.
  static let threshold: Int64 = 50_000_000

  private let lock = NSLock()
  private let write: @Sendable (String) -> Void
  private let clock = ContinuousClock()
  private let started: ContinuousClock.Instant
  private var lastDrawn: ContinuousClock.Instant?
  private var drawn = false

  /// A bar that writes with `write`.
  init(write: @escaping @Sendable (String) -> Void) {
    self.write = write
    self.started = clock.now
  }

  /// Takes one progress report from the reader.
  func update(bytesRead: Int64, totalBytes: Int64?) {
    lock.lock()
    defer { lock.unlock() }
    guard max(bytesRead, totalBytes ?? 0) > Self.threshold else { return }
    let now = clock.now
    if let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
    lastDrawn = now
    let elapsed = Self.seconds(now - started)
    write(
      "\r" + Self.line(bytesRead: bytesRead, totalBytes: totalBytes, elapsedSeconds: elapsed) + "\u{1B}[K")
    drawn = true
  }

  /// Clears the bar once reading is over.
  func finish() {
    lock.lock()
    defer { lock.unlock() }
    if drawn { write("\r\u{1B}[K") }
    drawn = false
  }

  /// The bar's text: `[#######-------]  45%  230.1 / 512.0 MB  88.4 MB/s  ETA 0:03`.
  static func line(bytesRead: Int64, totalBytes: Int64?, elapsedSeconds: Double) -> String {
    let megabytes = Double(bytesRead) / 1_000_000
    let rate = elapsedSeconds > 0 ? megabytes / elapsedSeconds : 0
    guard let totalBytes, totalBytes > 0 else {
      return "reading  \(decimal(megabytes)) MB  \(decimal(rate)) MB/s"
    }
    let fraction = min(1, Double(bytesRead) / Double(totalBytes))
    let width = 24
    let filled = Int((fraction * Double(width)).rounded(.down))
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    var text = "[\(bar)] \(TextFormatting.padLeft(String(Int(fraction * 100)), 3))%  "
    text += "\(decimal(megabytes)) / \(decimal(Double(totalBytes) / 1_000_000)) MB  \(decimal(rate)) MB/s"
    if rate > 0 {
      let left = Int(((Double(totalBytes) - Double(bytesRead)) / 1_000_000 / rate).rounded(.up))
      text += "  ETA \(left / 60):\(left % 60 < 10 ? "0" : "")\(left % 60)"
    }
    return text
  }

  private static func decimal(_ value: Double) -> String {
    let tenths = Int64((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }

  private static func seconds(_ duration: Duration) -> Double {
    let parts = duration.components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
  }
}
