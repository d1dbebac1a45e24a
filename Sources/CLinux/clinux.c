#define _GNU_SOURCE
#include <malloc.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clinux.h"

int CLinux_syncfs(int fd) { return syncfs(fd); }

int CLinux_accept_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int CLinux_release_free_memory(void) { return malloc_trim(0); }
