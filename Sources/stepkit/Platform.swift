// The few libc calls the command makes, in one place.
import CSQLite  // stepkit_start_writeback: sync_file_range, which Glibc's module leaves out

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Process-level facts and side effects: terminals, standard streams, files.
enum Platform {
  /// Whether standard output is a terminal (the default format is then `table`).
  static var standardOutputIsTerminal: Bool { isatty(1) == 1 }

  /// Whether standard error is a terminal (the progress bar is then drawn).
  static var standardErrorIsTerminal: Bool { isatty(2) == 1 }

  /// Whether a terminal of type `term` (`TERM`) understands escape codes: not when `TERM` is
  /// unset, empty or `dumb` (Emacs shells, some CI logs), which show them as garbage.
  static func takesEscapes(term: String?) -> Bool {
    guard let term, !term.isEmpty else { return false }
    return term != "dumb"
  }

  /// The environment variable `name`, or `nil` when it is not set.
  static func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  /// Keeps memory freed by worker threads for the next export instead of
  /// handing it back to the kernel after each one.
  ///
  /// glibc gives each worker thread an arena of its own and trims it
  /// (`madvise(MADV_DONTNEED)`) whenever more than its trim threshold lies
  /// free at the top; the reader's two 4 MiB read buffers, freed after every
  /// export, cross it, so the next export faults in and zero-fills 8 MiB
  /// again. Measured on a 40-export cohort: ten times the system time of
  /// `--jobs 1`, and `--jobs 2` slower than `--jobs 1`. A fixed mmap
  /// threshold above the buffers and a trim threshold above both keep them;
  /// memory stays bounded by the peak the run reaches anyway. Other C
  /// libraries (Darwin's, musl's) are left as they are.
  static func keepFreedMemoryForReuse() {
    #if canImport(Glibc)
      _ = glibcMallopt(MalloptParameter.mmapThreshold, 8 << 20)
      _ = glibcMallopt(MalloptParameter.trimThreshold, 32 << 20)
    #endif
  }

  /// Hands buffers of 1 MiB and more back to the kernel when they are freed.
  ///
  /// glibc raises its mmap threshold each time such a buffer is freed, so
  /// that later ones come from the heap, whose freed memory it keeps: one
  /// export read whole, then once per cumulative type on two threads (as
  /// `stepkit sqlite` read it then), kept the buffers of every pass, and
  /// `stepkit sqlite` of a 500 MB export peaked at 67 MiB instead of 56 MiB,
  /// no faster for it. A fixed threshold maps each such buffer on its own
  /// and unmaps it when freed. Other C libraries are left as they are.
  static func returnLargeFreedBuffers() {
    #if canImport(Glibc)
      _ = glibcMallopt(MalloptParameter.mmapThreshold, 1 << 20)
    #endif
  }

  #if canImport(Glibc)
    /// `mallopt`'s parameters: <malloc.h> is not part of the Glibc module, so they are given by value.
    private enum MalloptParameter {
      static let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
      static let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
    }
  #endif

  /// The number of processors the process may use (the default `--jobs`).
  static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

  /// Writes to a closed pipe fail with `EPIPE` instead of ending the process,
  /// so that the command decides what a closed pipe means (it stops writing, quietly).
  static func ignoreBrokenPipeSignal() { signal(SIGPIPE, SIG_IGN) }

  /// Writes `text` to standard error, all of it; errors are ignored (there is
  /// nowhere left to report them).
  static func writeStandardError(_ text: String) {
    var text = text
    _ = text.withUTF8 { writeAll(2, UnsafeRawBufferPointer($0)) }
  }

  /// Writes every byte of `bytes` to `descriptor`, retrying after signals and short writes.
  ///
  /// - Returns: `nil` when everything was written, otherwise the `errno` of the failed write.
  static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    guard var base = bytes.baseAddress else { return nil }
    var remaining = bytes.count
    while remaining > 0 {
      let written = systemWrite(descriptor, base, remaining)
      if written < 0 {
        if errno == EINTR { continue }
        return errno
      }
      remaining -= written
      base += written
    }
    return nil
  }

  /// Compares the first `count` bytes at `first` and `second` as unsigned bytes (`memcmp`).
  ///
  /// - Returns: Less than zero, zero or more than zero as `first` orders before, with or after `second`.
  @inline(__always)
  static func compareBytes(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, _ count: Int) -> Int32 {
    memcmp(first, second, count)
  }

  /// Writes every byte of `bytes` to `descriptor` at `offset` (`pwrite`, which keeps the file
  /// position), retrying after signals and short writes.
  ///
  /// - Returns: `nil` when everything was written, otherwise the `errno` of the failed write
  ///   (`ENOSPC` when the system wrote nothing and gave no reason).
  static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Int32? {
    guard let base = bytes.baseAddress else { return nil }
    var done = 0
    while done < bytes.count {
      let written = pwrite(descriptor, base + done, bytes.count - done, off_t(offset + Int64(done)))
      if written < 0 {
        if errno == EINTR { continue }
        return errno
      }
      if written == 0 { return ENOSPC }
      done += written
    }
    return nil
  }

  /// Starts writing `count` bytes of the file from `offset` to disk and returns at once (Linux;
  /// elsewhere nothing), so that a later `fsync` finds them written. A failure is ignored: it
  /// changes only how long the `fsync` takes.
  static func startWriteback(_ descriptor: Int32, from offset: Int64, count: Int64) {
    _ = stepkit_start_writeback(descriptor, offset, count)
  }

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

  private static func systemWrite(_ descriptor: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
      Darwin.write(descriptor, base, count)
    #elseif canImport(Musl)
      Musl.write(descriptor, base, count)
    #else
      Glibc.write(descriptor, base, count)
    #endif
  }
}

// MARK: - Files

extension Platform {
  /// What a path names.
  enum FileKind: Equatable, Sendable {
    case missing
    case regular
    case directory
    case fifo
    case characterDevice
    case blockDevice
    case socket
    case symbolicLink
    case other

    /// How a message names it: "a directory", "a FIFO (named pipe)".
    var description: String {
      switch self {
      case .missing: return "missing"
      case .regular: return "a regular file"
      case .directory: return "a directory"
      case .fifo: return "a FIFO (named pipe)"
      case .characterDevice: return "a character device"
      case .blockDevice: return "a block device"
      case .socket: return "a socket"
      case .symbolicLink: return "a symbolic link"
      case .other: return "not a regular file"
      }
    }
  }

  /// What `path` names, and its permission bits; symbolic links are followed
  /// unless `followingLinks` is `false`.
  static func fileKind(_ path: String, followingLinks: Bool = true) -> (kind: FileKind, permissions: UInt32) {
    var info = stat()
    let status = followingLinks ? stat(path, &info) : lstat(path, &info)
    guard status == 0 else { return (.missing, 0) }
    let kind: FileKind
    switch info.st_mode & S_IFMT {
    case S_IFREG: kind = .regular
    case S_IFDIR: kind = .directory
    case S_IFIFO: kind = .fifo
    case S_IFCHR: kind = .characterDevice
    case S_IFBLK: kind = .blockDevice
    case S_IFSOCK: kind = .socket
    case S_IFLNK: kind = .symbolicLink
    default: kind = .other
    }
    return (kind, UInt32(info.st_mode & 0o7777))
  }

  /// The absolute path with every symbolic link resolved, or `nil` when some part is missing.
  static func resolvedPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// Creates `path`, failing if anything exists there (`O_EXCL`), with the
  /// permissions a new file gets (`0666` less the umask).
  ///
  /// - Returns: The open descriptor, or the `errno`.
  static func createNewFile(_ path: String) -> Result<Int32, FileError> {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    return descriptor >= 0 ? .success(descriptor) : .failure(FileError(errno))
  }

  /// Creates `path` for reading and writing, failing if anything exists there (`O_EXCL`), readable
  /// by the owner only (`0600`): a temporary file that is unlinked as soon as it is open.
  ///
  /// - Returns: The open descriptor, or the `errno`.
  static func createPrivateFile(_ path: String) -> Result<Int32, FileError> {
    let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    return descriptor >= 0 ? .success(descriptor) : .failure(FileError(errno))
  }

  /// Removes the name `path` (`unlink(2)`); a file still open stays readable through its descriptor.
  ///
  /// - Returns: `nil`, or the `errno` when the name could not be removed.
  static func unlinkFile(_ path: String) -> FileError? {
    unlink(path) == 0 ? nil : FileError(errno)
  }

  /// Reads into `buffer` from `offset` of `descriptor` (`pread`, which keeps the file position),
  /// retrying after signals and short reads, until the buffer is full or the file ends.
  ///
  /// - Returns: The number of bytes read (fewer than `buffer.count` only at the end of the
  ///   file), or the `errno` of the failed read.
  static func readAll(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64)
    -> Result<Int, FileError>
  {
    guard let base = buffer.baseAddress else { return .success(0) }
    var done = 0
    while done < buffer.count {
      let got = pread(descriptor, base + done, buffer.count - done, off_t(offset + Int64(done)))
      if got < 0 {
        if errno == EINTR { continue }
        return .failure(FileError(errno))
      }
      if got == 0 { break }
      done += got
    }
    return .success(done)
  }

  /// Opens an existing file for writing (to flush it to disk).
  static func openForWriting(_ path: String) -> Result<Int32, FileError> {
    let descriptor = open(path, O_WRONLY | O_CLOEXEC)
    return descriptor >= 0 ? .success(descriptor) : .failure(FileError(errno))
  }

  /// Sets the permission bits of an open file.
  static func setPermissions(_ descriptor: Int32, _ permissions: UInt32) -> FileError? {
    fchmod(descriptor, mode_t(permissions)) == 0 ? nil : FileError(errno)
  }

  /// Flushes an open file to the disk (`fsync`).
  static func synchronize(_ descriptor: Int32) -> FileError? {
    fsync(descriptor) == 0 ? nil : FileError(errno)
  }

  /// Closes a descriptor; a delayed write error (a full disk on NFS) shows up here.
  static func close(_ descriptor: Int32) -> FileError? {
    #if canImport(Darwin)
      Darwin.close(descriptor) == 0 ? nil : FileError(errno)
    #elseif canImport(Musl)
      Musl.close(descriptor) == 0 ? nil : FileError(errno)
    #else
      Glibc.close(descriptor) == 0 ? nil : FileError(errno)
    #endif
  }

  /// Renames `source` over `target` in one step (`rename(2)`).
  static func rename(_ source: String, over target: String) -> FileError? {
    #if canImport(Darwin)
      Darwin.rename(source, target) == 0 ? nil : FileError(errno)
    #elseif canImport(Musl)
      Musl.rename(source, target) == 0 ? nil : FileError(errno)
    #else
      Glibc.rename(source, target) == 0 ? nil : FileError(errno)
    #endif
  }

  /// Removes a file, if it is there.
  static func removeFile(_ path: String) { unlink(path) }

  /// Flushes a directory's entries to disk, so that a rename inside it survives
  /// a power cut. Best effort: some file systems refuse to open or sync directories.
  static func synchronizeDirectory(_ path: String) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    fsync(descriptor)
    _ = close(descriptor)
  }

  /// Takes an exclusive `flock` on an open file without waiting; `false`
  /// when another open file description holds one.
  static func lockExclusively(_ descriptor: Int32) -> Bool { flock(descriptor, LOCK_EX | LOCK_NB) == 0 }

  /// The names in `directory` that start with `prefix` (none when it cannot be read).
  static func names(in directory: String, startingWith prefix: String) -> [String] {
    guard let stream = opendir(directory) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      // Read the name in place: readdir's record may be shorter than a whole
      // `dirent`, so copying `d_name` (256 bytes) would read past its end.
      let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 0
      let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
      if name.hasPrefix(prefix) { names.append(name) }
    }
    return names
  }

  /// Removes `path` when it is a regular file nobody holds a `flock` on and
  /// was last modified before `startedAt` (seconds since 1970): the
  /// temporary file of a run that was killed. Returns whether it removed it.
  static func removeIfAbandoned(_ path: String, modifiedBefore startedAt: Int) -> Bool {
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
    #if canImport(Darwin)
      let modified = Int(info.st_mtimespec.tv_sec)
    #else
      let modified = Int(info.st_mtim.tv_sec)
    #endif
    guard modified < startedAt else { return false }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { return false }
    defer { _ = close(descriptor) }
    guard lockExclusively(descriptor) else { return false }
    return unlink(path) == 0
  }

  /// When the process started, seconds since 1970.
  static let startedAt = Int(time(nil))

  /// `EEXIST`: `createNewFile` found something at the path.
  static var fileExistsErrorCode: Int32 { EEXIST }

  /// A random number for temporary file names.
  static func randomSuffix() -> String {
    String(UInt32.random(in: 0...UInt32.max), radix: 36)
  }

  /// An `errno` with the system's text for it.
  struct FileError: Error, Equatable, Sendable, CustomStringConvertible {
    var code: Int32

    init(_ code: Int32) { self.code = code }

    /// `No space left on device`.
    var description: String { String(cString: strerror(code)) }

    /// Whether the write failed because the reader went away (`EPIPE`).
    var isBrokenPipe: Bool { code == EPIPE }
  }
}

// MARK: - Interrupts

extension Platform {
  /// Temporary files to remove if the process is interrupted (Ctrl-C,
  /// `kill`, a closed terminal) before they are renamed into place, so that an
  /// interrupted `stepkit sqlite` leaves no hidden half-written database behind.
  ///
  /// The signal handler only reads the fixed table of C strings and calls
  /// `unlink`, which is async-signal-safe; then it ends the process as the
  /// signal would have.
  enum InterruptCleanup {
    private static let capacity = 8
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
      let slots = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
      slots.initialize(repeating: nil, count: capacity)
      return slots
    }()
    nonisolated(unsafe) private static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
      let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
      pthread_mutex_init(lock, nil)
      return lock
    }()
    nonisolated(unsafe) private static var handlersInstalled = false
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Removes `path` if a signal ends the process; returns the slot to give
    /// back to ``unregister(_:)``, or `nil` when the table is full.
    static func register(_ path: String) -> Int? {
      pthread_mutex_lock(lock)
      defer { pthread_mutex_unlock(lock) }
      if !handlersInstalled {
        handlersInstalled = true
        // A parent may have left these signals blocked (some process launchers
        // do); they are handled now, so let them reach this thread.
        var handled = sigset_t()
        sigemptyset(&handled)
        for number in signals {
          signal(number, handleSignal)
          sigaddset(&handled, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
      }
      guard let slot = (0..<capacity).first(where: { slots[$0] == nil }) else { return nil }
      slots[slot] = strdup(path)
      return slot
    }

    /// Forgets the file of `slot` (it was renamed into place or removed).
    static func unregister(_ slot: Int) {
      pthread_mutex_lock(lock)
      defer { pthread_mutex_unlock(lock) }
      let path = slots[slot]
      slots[slot] = nil
      free(path)
    }

    private static let handleSignal: @convention(c) (Int32) -> Void = { number in
      for slot in 0..<InterruptCleanup.capacity {
        if let path = InterruptCleanup.slots[slot] { unlink(path) }
      }
      signal(number, SIG_DFL)
      raise(number)
    }
  }
}

#if canImport(Glibc)
  /// glibc's `int mallopt(int param, int value)`, declared in <malloc.h>.
  @_silgen_name("mallopt")
  private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
