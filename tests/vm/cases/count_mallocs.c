// Counts heap allocations, for 40-touch-uinput's check that reading touches
// allocates nothing per event. Built by the host half into a shared object
// and LD_PRELOADed into `chakrad input --watch --count-only`; at exit it
// prints "mallocs: N" (every malloc, calloc, realloc and aligned
// allocation: Swift's runtime allocates through these) to standard error.
// (valgrind, which scripts/count-allocations.sh uses, cannot read the
// debug information of this toolchain's binaries.)
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_ulong allocations;

static void counted(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

void *malloc(size_t size) { counted(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { counted(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { counted(); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    counted();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *out = pointer;
    return 0;
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "mallocs: %lu\n", (unsigned long)atomic_load(&allocations));
}
