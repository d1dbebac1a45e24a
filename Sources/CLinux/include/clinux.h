#ifndef CLINUX_H
#define CLINUX_H

/* Linux calls that Glibc declares only under _GNU_SOURCE, which Swift's Glibc module lacks. */
int CLinux_syncfs(int fd);

/* accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC: the accepted socket is non-blocking at once. */
int CLinux_accept_nonblocking(int fd);

/* malloc_trim(0): hands the heap's free memory back to the system (after a load). */
int CLinux_release_free_memory(void);

/* renameat2 with RENAME_EXCHANGE: swaps two paths atomically (a repaired archive's folder and
   the damaged one), so a crash leaves one or the other under the name, never neither. */
int CLinux_exchange(const char *a, const char *b);

#endif
