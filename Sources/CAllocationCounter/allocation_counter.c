#define _GNU_SOURCE
#include "allocation_counter.h"

#include <errno.h>
#include <stddef.h>

/* A sanitizer's runtime defines malloc itself and must see every allocation: leave it alone. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define WATER_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WATER_SANITIZED 1
#endif

/* Per thread, so another thread's work never changes what the measuring thread sees. */
static __thread unsigned long allocations;

#ifdef WATER_SANITIZED

int CAllocationCounter_isCounting(void) { return 0; }

#else

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

int CAllocationCounter_isCounting(void) { return 1; }

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *out = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

#endif

unsigned long CAllocationCounter_count(void) { return allocations; }
