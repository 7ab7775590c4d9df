// The few libc calls the command makes, in one place.
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Process-level facts and side effects: terminals, standard streams, file sizes.
enum Platform {
  /// Whether standard output is a terminal (the default format is then `table`).
  static var standardOutputIsTerminal: Bool { isatty(1) == 1 }

  /// Whether standard error is a terminal (the progress bar is then drawn).
  static var standardErrorIsTerminal: Bool { isatty(2) == 1 }

  /// Writes `text` to standard output, all of it.
  static func writeStandardOutput(_ text: String) { write(text, to: 1) }

  /// Writes `text` to standard error, all of it.
  static func writeStandardError(_ text: String) { write(text, to: 2) }

  /// The locale messages should use: the first of `LC_ALL`, `LC_MESSAGES` and
  /// `LANG` that is set and not empty (`zh_CN.UTF-8`), or `C`.
  static var messagesLocale: String {
    for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
      if let value = getenv(name), value.pointee != 0 { return String(cString: value) }
    }
    return "C"
  }

  /// Ends the process with `code`.
  static func exit(_ code: Int32) -> Never {
    #if canImport(Glibc)
      Glibc.exit(code)
    #elseif canImport(Musl)
      Musl.exit(code)
    #else
      Darwin.exit(code)
    #endif
  }

  private static func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { buffer in
      guard var base = buffer.baseAddress else { return }
      var remaining = buffer.count
      while remaining > 0 {
        #if canImport(Darwin)
          let written = Darwin.write(descriptor, base, remaining)
        #elseif canImport(Musl)
          let written = Musl.write(descriptor, base, remaining)
        #else
          let written = Glibc.write(descriptor, base, remaining)
        #endif
        if written < 0 {
          if errno == EINTR { continue }
          return  // A closed pipe (`stepkit … | head`): nothing more to say.
        }
        remaining -= written
        base += written
      }
    }
  }
}
