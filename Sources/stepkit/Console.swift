import Foundation
import StepKitCore

/// Where a command writes: data to standard output, messages to standard error.
struct Console: Sendable {
  /// Writes data (the table, csv, json).
  var output: @Sendable (String) -> Void
  /// Writes messages (errors, notes, the progress bar).
  var error: @Sendable (String) -> Void
  /// Whether standard output is a terminal.
  var outputIsTerminal: Bool
  /// Whether standard error is a terminal.
  var errorIsTerminal: Bool
  /// Whether standard error is a terminal that understands escape codes (`TERM` set, and not
  /// `dumb`): only then do the progress bar and the cohort's status line redraw themselves.
  var errorTakesEscapes: Bool = false
  /// The language of messages about an unreadable export, from the user's
  /// locale (`LC_ALL`, `LC_MESSAGES` or `LANG`: `zh_CN.UTF-8` Simplified,
  /// `zh_TW.UTF-8` or `zh_HK.UTF-8` Traditional Chinese), else English.
  var language: StepKitLanguage = .english
  /// Why writing data stopped, if it did: asked once the command has run.
  var outputFailure: @Sendable () -> OutputFailure? = { nil }
  /// Writes data given as UTF-8 bytes, with no `String` made of them; `nil`
  /// hands them to ``output`` as a string (``output(bytes:)``).
  var outputBytes: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil

  /// Writes `bytes`, UTF-8, as data.
  func output(bytes: UnsafeRawBufferPointer) {
    if let outputBytes {
      outputBytes(bytes)
    } else {
      output(String(decoding: bytes, as: UTF8.self))
    }
  }

  /// The process's standard output and standard error.
  static var standard: Console {
    let output = StandardOutput()
    return Console(
      output: { output.write($0) },
      error: { Platform.writeStandardError($0) },
      outputIsTerminal: Platform.standardOutputIsTerminal,
      errorIsTerminal: Platform.standardErrorIsTerminal,
      errorTakesEscapes: Platform.standardErrorIsTerminal
        && Platform.takesEscapes(term: Platform.environment("TERM")),
      language: StepKitLanguage.preferred(from: [Platform.messagesLocale]),
      outputFailure: { output.failure }, outputBytes: { output.write(bytes: $0) })
  }
}

/// Why standard output took no more data.
enum OutputFailure: Equatable, Sendable {
  /// The reader went away (`stepkit … | head`): not an error, nothing to say.
  case closedPipe
  /// Writing failed (`No space left on device`, `Input/output error`): exit 1.
  case failed(Platform.FileError)
}

/// Standard output that remembers its first write error and writes nothing after it.
///
/// A full disk (`ENOSPC`) or a failing device (`EIO`) must not end in exit 0
/// with a cut file, so the error is kept for the command to report; a closed
/// pipe is kept too, and stays quiet.
final class StandardOutput: @unchecked Sendable {
  // Safe to share: `firstFailure` is read and written only under `lock`, which also keeps writes whole.
  private let lock = NSLock()
  private var firstFailure: OutputFailure?

  /// The first failure, if writing failed.
  var failure: OutputFailure? {
    lock.lock()
    defer { lock.unlock() }
    return firstFailure
  }

  /// Writes all of `text`, unless an earlier write failed.
  func write(_ text: String) {
    var text = text
    text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// Writes all of `bytes`, unless an earlier write failed.
  func write(bytes: UnsafeRawBufferPointer) {
    lock.lock()
    defer { lock.unlock() }
    guard firstFailure == nil else { return }
    guard let code = Platform.writeAll(1, bytes) else { return }
    let error = Platform.FileError(code)
    firstFailure = error.isBrokenPipe ? .closedPipe : .failed(error)
  }
}
