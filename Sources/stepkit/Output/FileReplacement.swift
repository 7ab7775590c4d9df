/// Why an output file was not written. Whatever was at the path before is left as it was.
struct OutputFileError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file, as the command line named it.
  var path: String
  /// Why (`No space left on device`, `it is a directory, not a file`).
  var message: String

  var description: String { "cannot write \(path): \(message)" }
}

/// A new version of a file, written beside it and renamed over it only once complete.
///
/// Whoever opens the target sees the old file or the whole new one, never a
/// part: the data goes to a hidden temporary file in the target's own
/// directory (`.health.db.stepkit-1x9ka2`, so that the rename stays on one
/// file system), which is flushed to disk (`fsync`) and then renamed over the
/// target in one step. Any failure removes the temporary file and leaves the
/// target exactly as it was. A target that exists and is not a regular file
/// (a directory, a FIFO, a device node) is refused before anything is
/// written. A symbolic link is followed: the file it points to is replaced
/// and the link stays. A replaced file keeps its permission bits. Ctrl-C,
/// `kill` or a closed terminal removes the temporary file too (only
/// `kill -9` or a power cut can leave it behind). The temporary file is
/// held with a `flock` while the run lasts, so the next run tells such a
/// leftover (nobody holds it, written before that run started) from
/// another run's file, and removes it (``removedLeftovers``).
final class FileReplacement {
  /// The path as the command line gave it, for messages.
  let path: String
  /// The file that is replaced: `path` with symbolic links resolved.
  let target: String
  /// Where the new version is written until ``commit()``.
  let temporaryPath: String
  private var isFinished = false
  /// Where the temporary file is registered for removal on Ctrl-C or `kill`.
  private var interruptSlot: Int?
  /// The temporary file, open and `flock`ed until the replacement is finished.
  private var heldDescriptor: Int32?
  /// The temporary files of earlier runs that were killed (`.OUT.db.stepkit-…`
  /// beside the target, nobody holding them, older than this run), removed
  /// when this one was made: their names, for a note.
  private(set) var removedLeftovers: [String] = []

  /// Checks that `path` may be replaced: nothing there yet (in a directory
  /// that exists) or a regular file, directly or through symbolic links.
  ///
  /// - Returns: The file to replace, symbolic links resolved.
  /// - Throws: ``OutputFileError`` naming what is in the way.
  @discardableResult
  static func checkTarget(_ path: String) throws(OutputFileError) -> String {
    guard !path.isEmpty else { throw OutputFileError(path: path, message: "the file name is empty") }
    var target = path
    if Platform.fileKind(path, followingLinks: false).kind == .symbolicLink {
      guard let resolved = Platform.resolvedPath(path) else {
        throw OutputFileError(path: path, message: "it is a symbolic link to a file that does not exist")
      }
      target = resolved
    }
    let kind = Platform.fileKind(target).kind
    switch kind {
    case .regular:
      return target
    case .missing:
      if path.hasSuffix("/") {
        throw OutputFileError(path: path, message: "no such directory; give a file name, not a directory")
      }
      let directory = Self.directory(of: target)
      guard Platform.fileKind(directory).kind == .directory else {
        throw OutputFileError(path: path, message: "the directory \(directory) does not exist")
      }
      return target
    default:
      throw OutputFileError(
        path: path,
        message: "it is \(kind.description), not a regular file; nothing was written. "
          + "Give the path of a file to create or replace")
    }
  }

  /// Checks the target and creates an empty temporary file beside it.
  ///
  /// - Throws: ``OutputFileError`` when the target may not be replaced or the
  ///   directory takes no new file.
  init(replacing path: String) throws(OutputFileError) {
    self.path = path
    target = try Self.checkTarget(path)
    let existing = Platform.fileKind(target)
    let prefix = Self.directory(of: target) + "/." + Self.name(of: target) + ".stepkit-"
    var attempt = 0
    while true {
      let candidate = prefix + Platform.randomSuffix()
      // Registered before it exists, so that no signal can end the process
      // between the file's creation and its registration; a name found taken is
      // given back at once.
      let slot = Platform.InterruptCleanup.register(candidate)
      switch Platform.createNewFile(candidate) {
      case .success(let descriptor):
        temporaryPath = candidate
        interruptSlot = slot
        heldDescriptor = descriptor
        _ = Platform.lockExclusively(descriptor)
        if existing.kind == .regular, let failure = Platform.setPermissions(descriptor, existing.permissions)
        {
          discard()
          throw OutputFileError(path: path, message: failure.description)
        }
        removeLeftovers(prefix: prefix)
        return
      case .failure(let error) where error.code == Platform.fileExistsErrorCode && attempt < 100:
        if let slot { Platform.InterruptCleanup.unregister(slot) }
        attempt += 1
      case .failure(let error):
        if let slot { Platform.InterruptCleanup.unregister(slot) }
        throw OutputFileError(
          path: path,
          message: "cannot create a file in \(Self.directory(of: target)) (\(error)); nothing was written")
      }
    }
  }

  deinit {
    if !isFinished { discard() }
    releaseHold()
  }

  /// Removes the temporary files (and their SQLite journals) of earlier runs
  /// that were killed, into ``removedLeftovers``.
  private func removeLeftovers(prefix: String) {
    let directory = Self.directory(of: prefix)
    let namePrefix = Self.name(of: prefix)
    for name in Platform.names(in: directory, startingWith: namePrefix).sorted() {
      let candidate = directory + "/" + name
      guard candidate != temporaryPath, !name.hasSuffix("-journal") else { continue }
      if Platform.removeIfAbandoned(candidate, modifiedBefore: Platform.startedAt) {
        Platform.removeFile(candidate + "-journal")
        removedLeftovers.append(candidate)
      }
    }
  }

  /// Closes the temporary file held open (and so its `flock`).
  private func releaseHold() {
    if let heldDescriptor { _ = Platform.close(heldDescriptor) }
    heldDescriptor = nil
  }

  /// Writes `text` into the temporary file, all of it.
  ///
  /// - Throws: ``OutputFileError`` (`No space left on device`, `File too large`).
  func write(_ text: String) throws(OutputFileError) {
    let descriptor: Int32
    switch Platform.openForWriting(temporaryPath) {
    case .success(let opened): descriptor = opened
    case .failure(let error): throw OutputFileError(path: path, message: error.description)
    }
    var text = text
    let failure = text.withUTF8 { Platform.writeAll(descriptor, UnsafeRawBufferPointer($0)) }.map(
      Platform.FileError.init)
    let closing = Platform.close(descriptor)
    if let error = failure ?? closing { throw OutputFileError(path: path, message: error.description) }
  }

  /// Appends `bytes` to the temporary file, for output written piece by piece
  /// (not after ``write(_:)``, which writes from the file's start).
  ///
  /// - Throws: ``OutputFileError`` (`No space left on device`, `File too large`).
  func append(_ bytes: UnsafeRawBufferPointer) throws(OutputFileError) {
    guard let heldDescriptor else { throw OutputFileError(path: path, message: "the file is closed") }
    if let code = Platform.writeAll(heldDescriptor, bytes) {
      throw OutputFileError(path: path, message: Platform.FileError(code).description)
    }
  }

  /// Flushes the temporary file to disk and renames it over the target.
  ///
  /// - Throws: ``OutputFileError``; the temporary file is then removed and the
  ///   target left as it was.
  func commit() throws(OutputFileError) {
    do throws(OutputFileError) {
      let descriptor: Int32
      switch Platform.openForWriting(temporaryPath) {
      case .success(let opened): descriptor = opened
      case .failure(let error): throw OutputFileError(path: path, message: error.description)
      }
      let syncing = Platform.synchronize(descriptor)
      let closing = Platform.close(descriptor)
      if let error = syncing ?? closing { throw OutputFileError(path: path, message: error.description) }
      // Something may have been put at the path while the file was being written.
      try Self.checkTarget(path)
      if let error = Platform.rename(temporaryPath, over: target) {
        throw OutputFileError(path: path, message: error.description)
      }
      isFinished = true
      releaseHold()
      if let interruptSlot { Platform.InterruptCleanup.unregister(interruptSlot) }
      interruptSlot = nil
      Platform.synchronizeDirectory(Self.directory(of: target))
    } catch {
      discard()
      throw error
    }
  }

  /// Removes the temporary file (and any journal SQLite left beside it); the target stays as it was.
  func discard() {
    Platform.removeFile(temporaryPath)
    Platform.removeFile(temporaryPath + "-journal")
    releaseHold()
    isFinished = true
    if let interruptSlot { Platform.InterruptCleanup.unregister(interruptSlot) }
    interruptSlot = nil
  }

  /// Writes `text` to `path` through a replacement: all of it, or nothing changes.
  ///
  /// - Returns: ``removedLeftovers``.
  @discardableResult
  static func write(_ text: String, to path: String) throws(OutputFileError) -> [String] {
    let file = try FileReplacement(replacing: path)
    try file.write(text)
    try file.commit()
    return file.removedLeftovers
  }

  /// The note naming the leftovers of killed runs that were removed; `nil` when there were none.
  static func leftoversNote(_ removed: [String]) -> String? {
    guard !removed.isEmpty else { return nil }
    return "stepkit: removed \(removed.joined(separator: ", ")), left by an earlier run that was killed\n"
  }

  /// The directory part of `path` (`.` when there is none).
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// The last part of `path`.
  static func name(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }
}
