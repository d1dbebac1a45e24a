#ifndef CLINUX_H
#define CLINUX_H

/* Linux calls that Glibc declares only under _GNU_SOURCE, which Swift's Glibc module lacks. */
int CLinux_syncfs(int fd);

#endif
