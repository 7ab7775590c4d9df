import CSQLite

/// SQLite's process-wide settings, made before the first connection opens:
/// `SQLiteSetup.once` stands before every `sqlite3_open_v2`.
enum SQLiteSetup {
  /// Turns off SQLite's memory statistics, which lock a global mutex around
  /// each allocation (millions, for a whole export's rows) and which nothing
  /// here reads. SQLite refuses the change once a connection is open, so it
  /// is made before the first.
  static let once: Void = {
    _ = stepkit_sqlite3_disable_memory_statistics()
  }()
}
