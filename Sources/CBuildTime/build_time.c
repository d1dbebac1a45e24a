#include "build_time.h"

const char *CBuildTime_date(void) { return __DATE__; }

const char *CBuildTime_time(void) { return __TIME__; }
