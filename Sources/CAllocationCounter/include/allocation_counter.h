#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

/* Counts the heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc,
   memalign) made by the calling thread, in the one executable that links this target:
   water-codec-allocations. The functions are defined here and forward to glibc's own
   (__libc_malloc ...), as /work/tools-shared/count_allocations.c does through LD_PRELOAD. */

/* Whether allocations are counted: false in a sanitizer build, whose runtime owns malloc. */
int CAllocationCounter_isCounting(void);

/* The calling thread's allocations so far. */
unsigned long CAllocationCounter_count(void);

#endif
