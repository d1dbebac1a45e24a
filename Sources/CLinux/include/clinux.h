#ifndef CLINUX_H
#define CLINUX_H

/* Linux calls that Glibc declares only under _GNU_SOURCE, which Swift's Glibc module lacks. */

/* accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC: the accepted socket is non-blocking at once. */
int CLinux_accept_nonblocking(int fd);

/* malloc_trim(0): hands the heap's free memory back to the system (after a load). */
int CLinux_release_free_memory(void);

/* mallopt(M_MMAP_THRESHOLD, 128 KiB): blocks of 128 KiB and more get pages of their own, given
   back to the system when freed. Left alone, glibc raises that threshold to the largest block
   freed so far (up to 32 MiB), and a long-running server's large arrays, grown by doubling,
   then leave holes in its heap that it keeps (issue 30: 1.25x the memory of a restart after
   a million writes; 1.10x with this). Set once, by the server's process, before it starts. */
int CLinux_keep_large_allocations_apart(void);

/* renameat2 with RENAME_EXCHANGE: swaps two paths atomically (a repaired archive's folder and
   the damaged one), so a crash leaves one or the other under the name, never neither. */
int CLinux_exchange(const char *a, const char *b);

/* epoll, through copies: struct epoll_event is packed on x86-64, which Swift cannot lay out.
   operation: 0 add, 1 modify, 2 delete. The token comes back with each ready event. */
#include <stdint.h>
enum { CLinux_EPOLLIN = 0x001, CLinux_EPOLLOUT = 0x004, CLinux_EPOLLERR = 0x008, CLinux_EPOLLHUP = 0x010,
       CLinux_EPOLLRDHUP = 0x2000 };
int CLinux_epoll_create(void);
int CLinux_epoll_control(int epfd, int operation, int fd, uint32_t events, uint64_t token);
int CLinux_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms);

/* A non-blocking eventfd: another thread wakes an event loop by writing to it. */
int CLinux_eventfd(void);

/* pipe2 with O_CLOEXEC: no process forked meanwhile by another thread inherits the ends. */
int CLinux_pipe_cloexec(int fds[2]);

#endif
