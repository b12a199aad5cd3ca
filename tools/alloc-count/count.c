// Counts malloc/calloc/realloc/posix_memalign/aligned_alloc calls of a process
// and prints "ALLOCS n" on exit: an LD_PRELOAD stand-in for valgrind, whose
// DWARF reader cannot read binaries from the Swift 6.3 toolchain.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <unistd.h>
static atomic_long count;
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
void *malloc(size_t n) { atomic_fetch_add(&count, 1); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { atomic_fetch_add(&count, 1); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { atomic_fetch_add(&count, 1); return __libc_realloc(p, n); }
int posix_memalign(void **p, size_t a, size_t n) { atomic_fetch_add(&count, 1); *p = __libc_memalign(a, n); return *p ? 0 : 12; }
void *aligned_alloc(size_t a, size_t n) { atomic_fetch_add(&count, 1); return __libc_memalign(a, n); }
__attribute__((destructor)) static void report(void) { char b[64]; int k = snprintf(b, sizeof b, "ALLOCS %ld\n", (long)count); write(2, b, k); }
