#ifndef STEPKIT_CSQLITE_SHIM_H
#define STEPKIT_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
