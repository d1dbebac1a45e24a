#define _GNU_SOURCE
#include <unistd.h>

#include "clinux.h"

int CLinux_syncfs(int fd) { return syncfs(fd); }
