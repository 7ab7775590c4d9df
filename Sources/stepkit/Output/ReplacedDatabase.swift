import CSQLite

/// The SQLite database a new one is about to be renamed over, held locked
/// until the rename is done.
///
/// SQLite keeps a database's unfinished work beside it: `OUT.db-journal` (a
/// rollback journal) or `OUT.db-wal` and `OUT.db-shm` (write-ahead logging).
/// Left beside a new file renamed over `OUT.db`, they would be replayed into
/// it by the next program that opens it, which then finds the database
/// malformed. So before the rename the old database is opened with SQLite,
/// which rolls a killed writer's journal back or checkpoints its log (and
/// removes them), and locked exclusively; a database another program holds a
/// lock on is refused, not replaced. After the rename, any such file still
/// beside the path (of a file SQLite could not open as a database) is removed.
struct ReplacedDatabase {
  /// The files SQLite keeps beside a database.
  static let sidecarSuffixes = ["-journal", "-wal", "-shm"]

  private var database: OpaquePointer?
  /// The database's path (symbolic links resolved).
  let target: String
  /// The files that lay beside the database before it was opened.
  let sidecarsFound: [String]

  /// Opens and locks the database at `target`, if there is one.
  ///
  /// - Parameters:
  ///   - target: The file about to be replaced.
  ///   - path: The path as the command line gave it, for messages.
  /// - Throws: ``OutputFileError`` when another program holds a lock on it.
  init(locking target: String, path: String) throws(OutputFileError) {
    self.target = target
    sidecarsFound = Self.sidecarSuffixes.map { target + $0 }.filter {
      Platform.fileKind($0, followingLinks: false).kind != .missing
    }
    guard Platform.fileKind(target).kind == .regular else { return }
    var handle: OpaquePointer?
    SQLiteSetup.once
    guard sqlite3_open_v2(target, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
      sqlite3_close(handle)
      return
    }
    database = handle
    sqlite3_busy_timeout(handle, 0)
    // A log left by a killed writer is checkpointed and removed (a database in
    // use by another program refuses); a hot rollback journal is rolled back
    // when the database is first read.
    let status = Self.run(handle, "PRAGMA journal_mode = DELETE")
    if status == SQLITE_BUSY || status == SQLITE_LOCKED {
      close()
      throw Self.inUse(path)
    }
    if status == SQLITE_NOTADB || status != SQLITE_OK {
      // Not a database SQLite can read: nothing to roll back or lock.
      close()
      return
    }
    let locking = Self.run(handle, "BEGIN EXCLUSIVE")
    if locking == SQLITE_BUSY || locking == SQLITE_LOCKED {
      close()
      throw Self.inUse(path)
    }
    if locking != SQLITE_OK { close() }
  }

  /// The error for a database at `path` another program holds a lock on.
  static func inUse(_ path: String) -> OutputFileError {
    OutputFileError(
      path: path,
      message: "another program is using it (it holds a lock on the database); nothing was written."
        + " Close that program, or give another file name")
  }

  /// Runs `sql`, stepping every row; returns SQLite's result code.
  private static func run(_ database: OpaquePointer?, _ sql: String) -> Int32 {
    var statement: OpaquePointer?
    let prepared = sqlite3_prepare_v2(database, sql, -1, &statement, nil)
    guard prepared == SQLITE_OK else { return prepared }
    defer { sqlite3_finalize(statement) }
    var status = sqlite3_step(statement)
    while status == SQLITE_ROW { status = sqlite3_step(statement) }
    return status == SQLITE_DONE ? SQLITE_OK : status
  }

  /// Removes what is left beside the path after the rename, lets go of the
  /// old database, and returns the names of the files that lay beside it
  /// before and are gone now (rolled back, checkpointed or removed).
  mutating func finish() -> [String] {
    for sidecar in Self.sidecarSuffixes.map({ target + $0 }) { Platform.removeFile(sidecar) }
    close()
    return sidecarsFound.filter { Platform.fileKind($0, followingLinks: false).kind == .missing }
  }

  /// Lets go of the old database (and its lock) without touching any file.
  mutating func close() {
    guard let database else { return }
    _ = Self.run(database, "ROLLBACK")
    sqlite3_close(database)
    self.database = nil
  }
}
