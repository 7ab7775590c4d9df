#ifndef STEPKIT_CSQLITE_SHIM_H
#define STEPKIT_CSQLITE_SHIM_H
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE  // sync_file_range
#endif
#include <sqlite3.h>
#if defined(__linux__)
#include <fcntl.h>
#endif

/// Turns off SQLite's memory statistics, which take a global mutex around
/// every allocation; nothing reads them. Only before SQLite is initialized
/// (the first connection opened): afterwards it changes nothing and returns
/// SQLITE_MISUSE. `sqlite3_config` is variadic, which Swift cannot call.
static inline int stepkit_sqlite3_disable_memory_statistics(void) {
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// Starts writing the file's bytes `offset..<offset + count` to disk and
/// returns at once (Linux's `sync_file_range` with `SYNC_FILE_RANGE_WRITE`),
/// so that a later `fsync` of a large file written in order finds most of it
/// written. Elsewhere it does nothing. Returns 0, or -1 with `errno`; a
/// failure changes nothing but the time the `fsync` takes.
static inline int stepkit_start_writeback(int descriptor, long long offset, long long count) {
#if defined(__linux__)
  return sync_file_range(descriptor, offset, count, SYNC_FILE_RANGE_WRITE);
#else
  (void)descriptor;
  (void)offset;
  (void)count;
  return 0;
#endif
}
#endif
