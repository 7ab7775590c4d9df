#if os(Linux)
  import Foundation
  import Glibc
  import Testing

  @testable import stepkit

  /// The command's own `mktemp`, which the static Foundation's atomic writing uses in the
  /// installed executable (`-Xlinker --wrap=mktemp`). Checked against the POSIX contract of
  /// `mktemp(3)`: the six trailing `X` replaced, the rest kept, no file of that name, and an empty
  /// string with `errno` set on failure.
  @Suite("The command's mktemp")
  struct TemporaryNameTests {
    /// Scripted random numbers: the first `first` draws are 1, which `next(upperBound: 62)` maps
    /// to 0 (the letter `a`; 0 itself would be drawn again), then `then` for ever.
    struct Scripted: RandomNumberGenerator {
      var first: Int
      var then: UInt64
      mutating func next() -> UInt64 {
        first -= 1
        return first >= 0 ? 1 : then
      }
    }

    /// `next(upperBound: 62)` of this is 1, the letter `b` (Lemire's multiply: 62 × it / 2⁶⁴).
    static let letterB = UInt64.max / 62 + UInt64.max / 124

    /// Calls `temporaryName` on a copy of `template`; the resulting string and `errno`.
    static func name(
      _ template: String, generator: some RandomNumberGenerator = SystemRandomNumberGenerator(),
      attempts: Int = 238_328
    ) -> (name: String, errno: Int32) {
      var bytes = Array(template.utf8CString)
      var generator = generator
      errno = 0
      let result = bytes.withUnsafeMutableBufferPointer { buffer in
        let returned = temporaryName(buffer.baseAddress!, using: &generator, attempts: attempts)
        #expect(returned == buffer.baseAddress!)
        return String(cString: returned)
      }
      return (result, errno)
    }

    @Test("The six X become letters and digits naming no file; the rest of the template stays")
    func fillsTemplate() throws {
      try withScratchDirectory { directory in
        let prefix = directory.appendingPathComponent("steps.csv.").path
        let letters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var names = Set<String>()
        for _ in 0..<50 {
          let (name, error) = Self.name(prefix + "XXXXXX")
          #expect(error == 0)
          #expect(name.count == prefix.count + 6)
          #expect(name.hasPrefix(prefix))
          #expect(name.suffix(6).allSatisfy { letters.contains($0) })
          #expect(!FileManager.default.fileExists(atPath: name))
          names.insert(name)
        }
        #expect(names.count == 50)
      }
    }

    @Test("A name that exists is passed over; when every name tried exists, EEXIST")
    func existingNames() throws {
      try withScratchDirectory { directory in
        let prefix = directory.appendingPathComponent("steps-").path
        #expect(FileManager.default.createFile(atPath: prefix + "aaaaaa", contents: nil))
        // First aaaaaa (taken), then bbbbbb.
        let second = Self.name(prefix + "XXXXXX", generator: Scripted(first: 6, then: Self.letterB))
        #expect(second.name == prefix + "bbbbbb")
        #expect(second.errno == 0)
        // Only aaaaaa, ever: three tries, then EEXIST.
        let none = Self.name(prefix + "XXXXXX", generator: Scripted(first: .max, then: 1), attempts: 3)
        #expect(none.name.isEmpty)
        #expect(none.errno == EEXIST)
        // A symbolic link that leads nowhere still takes its name (lstat, not stat).
        #expect(symlink(directory.appendingPathComponent("gone").path, prefix + "bbbbbb") == 0)
        let third = Self.name(
          prefix + "XXXXXX", generator: Scripted(first: 6, then: Self.letterB), attempts: 2)
        #expect(third.name.isEmpty)
        #expect(third.errno == EEXIST)
      }
    }

    @Test("A template not ending in six X is an empty string and EINVAL")
    func invalidTemplate() {
      for template in ["", "XXXXX", "/tmp/stepsXXXXX", "/tmp/stepsXXXXXX.csv"] {
        let (name, error) = Self.name(template)
        #expect(name.isEmpty, "\(template)")
        #expect(error == EINVAL, "\(template)")
      }
    }

    @Test("A directory that cannot be searched is an empty string and lstat's error")
    func unreadableDirectory() throws {
      try withScratchDirectory { directory in
        // A regular file as the directory: lstat says ENOTDIR, which is not "no such file".
        let file = directory.appendingPathComponent("file").path
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        let (name, error) = Self.name(file + "/stepsXXXXXX")
        #expect(name.isEmpty)
        #expect(error == ENOTDIR)
      }
    }
  }
#endif
