// The one libc function that the statically linked Foundation needs and that StepKit provides
// itself: glibc's `mktemp`, whose definition carries a link-time warning ("the use of `mktemp'
// is dangerous"), printed by every static link of Foundation.
//
// Foundation's atomic file writing (`Data.write(to:options: .atomic)`) asks `mktemp` for an
// unused name and then opens it with `O_CREAT | O_EXCL`, trying again if the name was taken
// meanwhile, so the race the warning is about cannot hurt it. `make` links the command with
// `-Xlinker --wrap=mktemp`, which sends that one reference here instead of to glibc; glibc's
// `mktemp` is then not linked, and the link prints no warning. Other builds (`swift build`,
// tests) link Foundation as a shared library, whose `mktemp` stays glibc's, and never call this.
#if os(Linux)
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// glibc's `mktemp` for the static Foundation (see above): ``temporaryName(_:using:attempts:)``
  /// with the system's random numbers.
  @_cdecl("__wrap_mktemp")
  func wrappedMktemp(_ template: UnsafeMutablePointer<CChar>) -> UnsafeMutablePointer<CChar> {
    var generator = SystemRandomNumberGenerator()
    return temporaryName(template, using: &generator)
  }

  /// `mktemp(3)`: replaces the six `X` that end `template` with letters and digits such that no
  /// file of that name exists, and returns `template`. On failure `template` becomes the empty
  /// string and `errno` says why: `EINVAL` when it does not end in `XXXXXX`, `EEXIST` when every
  /// name tried exists, or the error of `lstat` other than "no such file". As in glibc, the
  /// name is not reserved: the caller creates the file with `O_EXCL`.
  ///
  /// - Parameters:
  ///   - template: A NUL-terminated path ending in `XXXXXX`, changed in place.
  ///   - generator: Where the letters come from.
  ///   - attempts: Names tried before `EEXIST`; glibc's 62³ by default.
  /// - Returns: `template`.
  func temporaryName(
    _ template: UnsafeMutablePointer<CChar>, using generator: inout some RandomNumberGenerator,
    attempts: Int = 238_328
  ) -> UnsafeMutablePointer<CChar> {
    let length = strlen(template)
    let suffix = UInt8(ascii: "X")
    guard length >= 6, (length - 6..<length).allSatisfy({ UInt8(bitPattern: template[$0]) == suffix }) else {
      template[0] = 0
      errno = EINVAL
      return template
    }
    let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
    let savedErrno = errno
    for _ in 0..<attempts {
      for index in length - 6..<length {
        template[index] = CChar(bitPattern: alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))])
      }
      var status = stat()
      if lstat(template, &status) != 0 {
        if errno == ENOENT {
          errno = savedErrno
          return template
        }
        template[0] = 0
        return template
      }
    }
    template[0] = 0
    errno = EEXIST
    return template
  }
#endif
