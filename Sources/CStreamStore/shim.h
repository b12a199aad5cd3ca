// Streaming (non-temporal) stores for the final pass: a finished frame row
// goes to memory without first reading its cache lines in (no
// read-for-ownership) and without pushing the renderer's working set out
// of the cache. A frame is written once and not read again by the CPU, and
// scanout buffers are often write-combined, so this is the store the frame
// wants. Where the CPU has no such store (or the compiler no SSE2), plain
// stores: same pixels.
#ifndef CHAKRA_STREAM_STORE_H
#define CHAKRA_STREAM_STORE_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>

/// Stores the 16 bytes at `source` to `target` (16-byte aligned).
static inline void chakra_stream16(void *target, const void *source) {
    _mm_stream_si128((__m128i *)target, _mm_loadu_si128((const __m128i *)source));
}

/// Orders the streaming stores before whatever comes next (the page flip).
static inline void chakra_stream_fence(void) { _mm_sfence(); }

static inline int chakra_stream_available(void) { return 1; }
#else
static inline void chakra_stream16(void *target, const void *source) { memcpy(target, source, 16); }
static inline void chakra_stream_fence(void) {}
static inline int chakra_stream_available(void) { return 0; }
#endif

#endif
