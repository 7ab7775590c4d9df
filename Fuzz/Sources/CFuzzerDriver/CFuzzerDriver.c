#include "CFuzzerDriver.h"
