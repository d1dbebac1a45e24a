#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clinux.h"

int CLinux_syncfs(int fd) { return syncfs(fd); }

int CLinux_accept_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int CLinux_release_free_memory(void) { return malloc_trim(0); }

int CLinux_exchange(const char *a, const char *b) { return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE); }
