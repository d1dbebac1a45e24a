#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clinux.h"


int CLinux_accept_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int CLinux_release_free_memory(void) { return malloc_trim(0); }

int CLinux_keep_large_allocations_apart(void) { return mallopt(M_MMAP_THRESHOLD, 128 * 1024); }

int CLinux_exchange(const char *a, const char *b) { return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE); }

int CLinux_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int CLinux_epoll_control(int epfd, int operation, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {.events = events, .data = {.u64 = token}};
    int op = operation == 0 ? EPOLL_CTL_ADD : operation == 1 ? EPOLL_CTL_MOD : EPOLL_CTL_DEL;
    return epoll_ctl(epfd, op, fd, &event);
}

int CLinux_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epfd, ready, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        tokens[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return count;
}

int CLinux_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int CLinux_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
