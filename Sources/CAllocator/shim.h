// glibc's allocator controls (malloc.h: mallopt, M_MMAP_THRESHOLD,
// M_ARENA_MAX), which Glibc's Swift module does not bring in.
// Header-only: nothing to link. Only chakrad's AllocatorPolicy uses it.
#ifndef CHAKRA_CALLOCATOR_SHIM_H
#define CHAKRA_CALLOCATOR_SHIM_H
#include <malloc.h>
#endif
