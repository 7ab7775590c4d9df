#ifndef STEPKIT_CSQLITE_SHIM_H
#define STEPKIT_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Turns off SQLite's memory statistics, which take a global mutex around
/// every allocation; nothing reads them. Only before SQLite is initialized
/// (the first connection opened): afterwards it changes nothing and returns
/// SQLITE_MISUSE. `sqlite3_config` is variadic, which Swift cannot call.
static inline int stepkit_sqlite3_disable_memory_statistics(void) {
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
