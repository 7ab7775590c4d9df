#ifndef STEPKIT_CZLIB_SHIM_H
#define STEPKIT_CZLIB_SHIM_H
#include <zlib.h>
#endif
