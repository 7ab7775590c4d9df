import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// How much of a ``SampleLog`` stays in memory, and where the rest goes.
///
/// A log keeps its encoded samples in memory up to ``memoryBudget`` bytes;
/// the samples after that are written to an anonymous temporary file (no
/// name in any directory, so nothing is left behind even if the process is
/// killed) and read back, a stretch at a time, whenever the log is read or
/// counted. A log that stays within the budget never creates a file.
///
/// ```swift
/// var log = SampleLog(storage: SampleStorage(memoryBudget: 16 << 20))
/// ```
public struct SampleStorage: Sendable, Hashable {
  /// The encoded samples kept in memory before later ones go to the
  /// temporary file, in bytes (about 5 bytes a sample on exports).
  public var memoryBudget: Int
  /// The directory of the temporary file; `nil` for the system's (`TMPDIR`
  /// when set, else the platform's temporary directory).
  public var temporaryDirectory: String?

  /// Creates a storage choice.
  ///
  /// - Parameters:
  ///   - memoryBudget: Bytes of encoded samples kept in memory.
  ///   - temporaryDirectory: Where the temporary file goes; `nil` for the system's.
  public init(memoryBudget: Int = SampleStorage.standardMemoryBudget, temporaryDirectory: String? = nil) {
    self.memoryBudget = memoryBudget
    self.temporaryDirectory = temporaryDirectory
  }

  /// The default budget: 4 MiB, about 800 000 export samples.
  public static let standardMemoryBudget = 4 << 20

  /// The default: ``standardMemoryBudget`` in memory, the rest in the system's temporary directory.
  public static let standard = SampleStorage()

  /// Everything in memory, never a file.
  public static let inMemory = SampleStorage(memoryBudget: .max)

  /// The directory the temporary file is made in.
  var resolvedDirectory: String {
    if let temporaryDirectory { return temporaryDirectory }
    if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
    return NSTemporaryDirectory()
  }
}

/// Why a log's temporary file could not be used.
///
/// When the file cannot be made or written (``Operation/create``,
/// ``Operation/write``), the log keeps the samples in memory instead, and
/// its counts are right; the error only says why memory grew. When a stretch
/// written earlier cannot be read back (``Operation/read``), counts made
/// from the log since are wrong and must be discarded.
public struct SampleStorageError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What failed.
  public enum Operation: Sendable, Hashable {
    /// Making the temporary file.
    case create
    /// Writing samples to it.
    case write
    /// Reading samples back from it.
    case read
  }

  /// What failed.
  public var operation: Operation
  /// The directory of the temporary file.
  public var directory: String
  /// The system's error number (`errno`); 0 for a read that came back short.
  public var code: Int32

  // Written out as every public value type's memberwise initializer is (Swift makes none public):
  // alike in shape only with other types' of as many fields; each names its own fields.

  /// Creates an error.
  public init(operation: Operation, directory: String, code: Int32) {
    self.operation = operation
    self.directory = directory
    self.code = code
  }

  /// Whether counts made from the log are wrong (a read failed).
  public var losesSamples: Bool { operation == .read }

  /// The message in English.
  public var description: String { message(in: .english) }

  /// The message in `language`.
  public func message(in language: StepKitLanguage) -> String {
    let reason = code == 0 ? "end of file" : String(cString: strerror(code))
    switch (operation, language) {
    case (.create, .english):
      return "cannot create a temporary file in \(directory) (\(reason)); samples are kept in memory"
    case (.write, .english):
      return "cannot write the temporary file in \(directory) (\(reason)); samples are kept in memory"
    case (.read, .english):
      return "cannot read back samples from the temporary file in \(directory) (\(reason))"
    case (.create, .simplifiedChinese):
      return "无法在 \(directory) 创建临时文件（\(reason)）；样本保留在内存中"
    case (.write, .simplifiedChinese):
      return "无法写入 \(directory) 中的临时文件（\(reason)）；样本保留在内存中"
    case (.read, .simplifiedChinese):
      return "无法从 \(directory) 中的临时文件读回样本（\(reason)）"
    case (.create, .traditionalChinese):
      return "無法在 \(directory) 建立暫存檔（\(reason)）；樣本保留在記憶體中"
    case (.write, .traditionalChinese):
      return "無法寫入 \(directory) 中的暫存檔（\(reason)）；樣本保留在記憶體中"
    case (.read, .traditionalChinese):
      return "無法從 \(directory) 中的暫存檔讀回樣本（\(reason)）"
    }
  }
}

/// An anonymous temporary file that sealed stretches of samples are written
/// to once and read back from: made in a directory and unlinked at once (on
/// Linux never linked at all), closed when the last store using it goes.
///
/// Writers take disjoint ranges under a lock, so copies of a store may go on
/// appending to the one file; reads and writes use `pread` and `pwrite`, which
/// keep no shared file position.
final class SpillFile: @unchecked Sendable {
  // Safe to share: `end`, `readFailure` and `failsWrites` are touched only under `lock`;
  // the descriptor is constant.
  private let descriptor: Int32
  /// The directory the file was made in.
  let directory: String
  private let lock = NSLock()
  private var end: Int64 = 0
  private var readFailure: SampleStorageError?
  private var failsWrites = false
  private var failsReads = false

  private init(descriptor: Int32, directory: String) {
    self.descriptor = descriptor
    self.directory = directory
  }

  /// Makes an anonymous file in `directory`.
  ///
  /// - Returns: The file, or why it could not be made (``SampleStorageError/Operation/create``).
  static func create(in directory: String) -> Result<SpillFile, SampleStorageError> {
    // Results rather than typed throws: the iOS SDK's compiler stumbles on a concrete thrown type here.
    var fd: Int32 = -1
    #if os(Linux)
      // O_TMPFILE (`__O_TMPFILE | O_DIRECTORY`, not imported as a constant): a file with no name.
      fd = open(directory, O_RDWR | O_CLOEXEC | O_DIRECTORY | 0o2000_0000, 0o600)
    #endif
    if fd < 0 {
      // Where O_TMPFILE is missing (other systems, some file systems): a unique name, unlinked at once.
      var template = Array((directory.hasSuffix("/") ? directory : directory + "/").utf8CString.dropLast())
      template += Array("stepkit-samples-XXXXXX".utf8CString)
      fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
      guard fd >= 0 else {
        return .failure(SampleStorageError(operation: .create, directory: directory, code: errno))
      }
      let removed = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
      guard removed == 0 else {
        let code = errno
        close(fd)
        return .failure(SampleStorageError(operation: .create, directory: directory, code: code))
      }
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    return .success(SpillFile(descriptor: fd, directory: directory))
  }

  deinit { close(descriptor) }

  /// The file's descriptor, for tests that check it is closed.
  var fileDescriptor: Int32 { descriptor }

  /// The first failure to read back, if any.
  var failure: SampleStorageError? { locked { readFailure } }

  /// Makes every later write fail as a full disk would (`ENOSPC`), for tests.
  func failWritesForTesting() { locked { failsWrites = true } }

  /// Makes every later read fail as a failing disk would (`EIO`), for tests.
  func failReadsForTesting() { locked { failsReads = true } }

  private func locked<T>(_ body: () -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body()
  }

  /// Reserves `count` bytes at the end of the file.
  func reserve(_ count: Int) -> Int64 {
    locked {
      let offset = end
      end += Int64(count)
      return offset
    }
  }

  /// Writes `count` bytes from `base` at the end of the file.
  ///
  /// - Returns: The offset they were written at, or why they were not (``SampleStorageError/Operation/write``).
  func append(_ base: UnsafeRawPointer, count: Int) -> Result<Int64, SampleStorageError> {
    let offset = reserve(count)
    if let failure = write(base, count: count, at: offset) { return .failure(failure) }
    return .success(offset)
  }

  /// Writes `count` bytes from `base` at `offset`.
  ///
  /// - Returns: `nil`, or why they were not written (``SampleStorageError/Operation/write``).
  func write(_ base: UnsafeRawPointer, count: Int, at offset: Int64) -> SampleStorageError? {
    if locked({ failsWrites }) {
      return SampleStorageError(operation: .write, directory: directory, code: ENOSPC)
    }
    var done = 0
    while done < count {
      let written = pwrite(descriptor, base + done, count - done, off_t(offset + Int64(done)))
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else {
        return SampleStorageError(operation: .write, directory: directory, code: written < 0 ? errno : ENOSPC)
      }
      done += written
    }
    return nil
  }

  /// Reads `count` bytes at `offset` into `base`, a buffer of `capacity` bytes.
  ///
  /// A failed or short read fills the whole buffer with zeros (which decode
  /// as samples of nothing, each within a few bytes, so no decoder runs off
  /// the buffer) and is kept as ``failure``: the bytes were written before,
  /// so only the system can lose them.
  ///
  /// - Returns: Whether every byte was read.
  @discardableResult
  func read(into base: UnsafeMutableRawPointer, count: Int, at offset: Int64, capacity: Int) -> Bool {
    var done = 0
    let failing = locked { failsReads }
    while done < count {
      let got = failing ? -1 : pread(descriptor, base + done, count - done, off_t(offset + Int64(done)))
      if got < 0 && !failing && errno == EINTR { continue }
      guard got > 0 else {
        let code = failing ? EIO : got < 0 ? errno : 0
        let failure = SampleStorageError(operation: .read, directory: directory, code: code)
        locked { readFailure = readFailure ?? failure }
        base.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
        return false
      }
      done += got
    }
    return true
  }
}
