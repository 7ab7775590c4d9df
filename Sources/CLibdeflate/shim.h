#ifndef STEPKIT_CLIBDEFLATE_SHIM_H
#define STEPKIT_CLIBDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
