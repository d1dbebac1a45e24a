#ifndef CBUILDTIME_H
#define CBUILDTIME_H

/* When this file was compiled, as the compiler's __DATE__ ("Dec  1 2026") and __TIME__
   ("14:30:05"), in the building machine's zone: a moment the real clock has certainly passed,
   which a server with no real-time clock compares its own with. */
const char *CBuildTime_date(void);
const char *CBuildTime_time(void);

#endif
