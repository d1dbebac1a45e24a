/* LD_PRELOAD shim for scripts/bench: counts the heap allocations (malloc, calloc, realloc,
 * reallocarray, posix_memalign, aligned_alloc, memalign, valloc, pvalloc) of every thread of the
 * process it is loaded into (glibc's own calls to malloc go through it too), into the first
 * 8 bytes of the file WATER_ALLOC_COUNTS names (shared memory: the benchmark reads it while the
 * server runs). The benchmark's own, never the product's: only scripts/bench builds it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

static _Atomic unsigned long *counts;

__attribute__((constructor)) static void open_counts(void) {
    const char *path = getenv("WATER_ALLOC_COUNTS");
    if (!path) return;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (ftruncate(fd, 64) == 0) {
        void *map = mmap(NULL, 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map != MAP_FAILED) counts = map;
    }
    close(fd);
}

static inline void count(void) {
    if (counts) atomic_fetch_add_explicit(counts, 1, memory_order_relaxed);
}

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(); return __libc_realloc(p, size); }
/* glibc's reallocarray, valloc and pvalloc call its allocator directly, not through malloc. */
void *reallocarray(void *p, size_t n, size_t size) {
    size_t bytes;
    count();
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, bytes);
}
void *valloc(size_t size) { count(); return __libc_valloc(size); }
void *pvalloc(size_t size) { count(); return __libc_pvalloc(size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    count();
    void *p = __libc_memalign(alignment, size);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
