// Vector operations the low-precision final pass needs that Swift's SIMD
// types cannot spell: the high half of a 16-bit product, and bytes
// saturated out of 16-bit lanes and interleaved into pixels. Written with
// clang's portable vector extensions where the compiler lowers them well
// on both 128-bit ISAs (SSE2's punpck*, NEON's zip), and with each ISA's
// own instruction where it does not: the high halves (SSE2's pmulhw,
// NEON's sqdmulh, which the portable form became five instructions for)
// and the saturating packs (packuswb, sqxtun). Every function gives the
// same lanes on both, so frames are byte-identical. Header-only and static inline: Swift inlines them into the
// loops that call them. (SwiftPM does not track this header, and builds
// recompile only changed Swift files: after editing it, touch every Swift
// file that calls what changed, or the build keeps the old code inlined.)
#ifndef CHAKRA_LANES_H
#define CHAKRA_LANES_H

#include <stdint.h>
#include <string.h>
#if defined(__ARM_NEON)
#include <arm_neon.h>
#endif

/// Eight signed 16-bit lanes (Swift: SIMD8<Int16>).
typedef int16_t chakra_i16x8 __attribute__((ext_vector_type(8)));
typedef int32_t chakra_i32x8 __attribute__((ext_vector_type(8)));
typedef uint8_t chakra_u8x8 __attribute__((ext_vector_type(8)));
typedef uint8_t chakra_u8x16 __attribute__((ext_vector_type(16)));
typedef int32_t chakra_i32x4 __attribute__((ext_vector_type(4)));

/// The high-half product each ISA has in one instruction, its operand p
/// in `chakra_doubling` form: (2a · b) >> 16 for p = chakra_doubling(a).
/// SSE2's pmulhw gives (p · b) >> 16, so there p = 2a (2a must fit 16
/// bits); NEON's sqdmulh gives (2p · b) >> 16, so there p = a. Made once
/// where the operand is reused (a row's vertical step, an interval's
/// step). sqdmulh saturates only for p = b = −32768; every caller's b is
/// a weight, a fraction or −alpha, none below −32767.
static inline chakra_i16x8 chakra_mulhi_doubling(chakra_i16x8 p, chakra_i16x8 b) {
#if defined(__SSE2__)
    return (chakra_i16x8)__builtin_ia32_pmulhw128(p, b);
#elif defined(__ARM_NEON)
    return (chakra_i16x8)vqdmulhq_s16((int16x8_t)p, (int16x8_t)b);
#else
    chakra_i32x8 product = __builtin_convertvector(p, chakra_i32x8) * __builtin_convertvector(b, chakra_i32x8);
    return __builtin_convertvector(product >> 16, chakra_i16x8);
#endif
}

/// The operand `chakra_mulhi_doubling` takes for a: 2a, or a on NEON.
static inline chakra_i16x8 chakra_doubling(chakra_i16x8 a) {
#if defined(__ARM_NEON)
    return a;
#else
    return a + a;
#endif
}

/// `chakra_doubling` on four 32-bit lanes (an interval's step before it
/// is spread).
static inline chakra_i32x4 chakra_doubling4(chakra_i32x4 a) {
#if defined(__ARM_NEON)
    return a;
#else
    return a + a;
#endif
}

/// (a · b) >> 16 in every lane, the product taken in 32 bits: with b a
/// weight in Q15 (32767 ≈ 1), a·b/2¹⁶ = (a/2)·weight. SSE2: pmulhw. NEON
/// has no high half of a plain product: sqdmulh's (2ab) >> 16 halved again
/// is exact (⌊⌊2ab/2¹⁶⌋/2⌋ = ⌊ab/2¹⁶⌋), two instructions where the
/// widening form (sshll, sshll2, two mul, uzp2) takes five.
static inline chakra_i16x8 chakra_mulhi(chakra_i16x8 a, chakra_i16x8 b) {
#if defined(__ARM_NEON)
    return chakra_mulhi_doubling(a, b) >> 1;
#else
    return chakra_mulhi_doubling(a, b);
#endif
}

/// (2a · b) >> 16 = (a · b) >> 15, a high half that keeps one more bit:
/// NEON's sqdmulh alone; SSE2 doubles a first.
static inline chakra_i16x8 chakra_mulhi_doubled(chakra_i16x8 a, chakra_i16x8 b) {
    return chakra_mulhi_doubling(chakra_doubling(a), b);
}

/// ((a · b) >> 16) << 1: SSE2 pmulhw and a shift; NEON sqdmulh with its
/// lowest bit cleared (2⌊n/2⌋ = n & ~1 for n = ⌊2ab/2¹⁶⌋).
static inline chakra_i16x8 chakra_mulhi_even(chakra_i16x8 a, chakra_i16x8 b) {
#if defined(__ARM_NEON)
    const chakra_i16x8 even = -2;
    return chakra_mulhi_doubling(a, b) & even;
#else
    return chakra_mulhi(a, b) << 1;
#endif
}

/// Lanes clamped to 0...255, as bytes.
static inline chakra_u8x8 chakra_saturate_u8(chakra_i16x8 v) {
    const chakra_i16x8 zero = 0, top = 255;
    return __builtin_convertvector(__builtin_elementwise_min(__builtin_elementwise_max(v, zero), top), chakra_u8x8);
}

/// Each of the four lanes of `v` (as 16 bits) spread over eight lanes: one
/// narrowing and two shuffles a lane, where building each from a scalar
/// costs an extraction and three shuffles.
typedef struct {
    chakra_i16x8 x, y, z, w;
} chakra_spread4;

static inline chakra_spread4 chakra_spread(chakra_i32x4 v) {
    chakra_i16x8 n = __builtin_convertvector(__builtin_shufflevector(v, v, 0, 1, 2, 3, 0, 1, 2, 3), chakra_i16x8);
    chakra_spread4 out = {
        __builtin_shufflevector(n, n, 0, 0, 0, 0, 0, 0, 0, 0),
        __builtin_shufflevector(n, n, 1, 1, 1, 1, 1, 1, 1, 1),
        __builtin_shufflevector(n, n, 2, 2, 2, 2, 2, 2, 2, 2),
        __builtin_shufflevector(n, n, 3, 3, 3, 3, 3, 3, 3, 3),
    };
    return out;
}

/// Lanes clamped to lo...hi.
static inline chakra_i16x8 chakra_clamp(chakra_i16x8 v, int16_t lo, int16_t hi) {
    const chakra_i16x8 low = lo, high = hi;
    return __builtin_elementwise_min(__builtin_elementwise_max(v, low), high);
}

/// Two lanes' worth of bytes: `low` then `high`, each lane saturated to
/// 0...255. One instruction where the ISA has it (SSE2's packuswb, NEON's
/// sqxtun); the portable form clamps first, which compilers do not fold.
static inline chakra_u8x16 chakra_saturate_pair(chakra_i16x8 low, chakra_i16x8 high) {
#if defined(__SSE2__)
    return (chakra_u8x16)__builtin_ia32_packuswb128(low, high);
#elif defined(__ARM_NEON)
    return (chakra_u8x16)vcombine_u8(vqmovun_s16(low), vqmovun_s16(high));
#else
    return __builtin_shufflevector(chakra_saturate_u8(low), chakra_saturate_u8(high), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                   13, 14, 15);
#endif
}

/// Hides `v`'s origin from the optimiser (x86 only): LLVM's shuffle
/// combiner otherwise merges a pack and the two interleaves after it into
/// one byte shuffle, which SSE2 (no pshufb) spells as a longer sequence of
/// unpacks and repacks: about 36 instructions for eight pixels instead
/// of 27.
#if defined(__SSE2__)
#define CHAKRA_OPAQUE(v) __asm__("" : "+x"(v))
#else
#define CHAKRA_OPAQUE(v) ((void)0)
#endif

/// Eight pixels from 8-bit channel lanes (each saturated to 0...255)
/// as 32-bit words whose bytes in memory are first, second, third, 0xFF:
/// XRGB8888 with (blue, green, red), XBGR8888 with (red, green, blue).
/// Two saturating packs put (first, third) and (second, 0xFF) in bytes,
/// and interleaving bytes then 16-bit pairs gives the pixels.
/// `stream`: non-temporal stores (16-byte aligned `out`).
static inline void chakra_store_pixels32(chakra_i16x8 first, chakra_i16x8 second, chakra_i16x8 third, void *out, int stream) {
    const chakra_i16x8 opaque = 255;
    chakra_u8x16 ac = chakra_saturate_pair(first, third);
    chakra_u8x16 bd = chakra_saturate_pair(second, opaque);
    CHAKRA_OPAQUE(ac);
    CHAKRA_OPAQUE(bd);
    chakra_u8x16 ab = __builtin_shufflevector(ac, bd, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    chakra_u8x16 cd = __builtin_shufflevector(ac, bd, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    CHAKRA_OPAQUE(ab);
    CHAKRA_OPAQUE(cd);
    chakra_u8x16 low = __builtin_shufflevector(ab, cd, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
    chakra_u8x16 high = __builtin_shufflevector(ab, cd, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
    if (stream) {
        __builtin_nontemporal_store(low, (chakra_u8x16 *)out);
        __builtin_nontemporal_store(high, (chakra_u8x16 *)out + 1);
    } else {
        memcpy(out, &low, 16);
        memcpy((uint8_t *)out + 16, &high, 16);
    }
}

/// `chakra_store_pixels32` of (first + dither) >> 6, (second + dither) >> 6
/// and (third + dither) >> 6: the final pass's dithered pack of 8.6 fixed
/// point. NEON shifts, saturates and narrows in one instruction (sqshrun)
/// and interleaves four channels in its store (st4): seven instructions
/// where the shared form takes fourteen. The same bytes either way.
static inline void chakra_store_dithered32(chakra_i16x8 first, chakra_i16x8 second, chakra_i16x8 third, chakra_i16x8 dither,
                                           void *out, int stream) {
#if defined(__ARM_NEON)
    (void)stream;
    uint8x8x4_t pixels = {{vqshrun_n_s16((int16x8_t)(first + dither), 6), vqshrun_n_s16((int16x8_t)(second + dither), 6),
                           vqshrun_n_s16((int16x8_t)(third + dither), 6), vdup_n_u8(255)}};
    vst4_u8((uint8_t *)out, pixels);
#else
    chakra_store_pixels32((first + dither) >> 6, (second + dither) >> 6, (third + dither) >> 6, out, stream);
#endif
}

/// Byte `index` (0...3) of each of eight 32-bit pixels, as 16-bit lanes.
static inline chakra_i16x8 chakra_channel_of_pixels32(const void *pixels, int index) {
    chakra_u8x16 low, high;
    memcpy(&low, pixels, 16);
    memcpy(&high, (const uint8_t *)pixels + 16, 16);
    chakra_u8x8 bytes;
    switch (index) {
    case 0: bytes = __builtin_shufflevector(low, high, 0, 4, 8, 12, 16, 20, 24, 28); break;
    case 1: bytes = __builtin_shufflevector(low, high, 1, 5, 9, 13, 17, 21, 25, 29); break;
    case 2: bytes = __builtin_shufflevector(low, high, 2, 6, 10, 14, 18, 22, 26, 30); break;
    default: bytes = __builtin_shufflevector(low, high, 3, 7, 11, 15, 19, 23, 27, 31); break;
    }
    return __builtin_convertvector(bytes, chakra_i16x8);
}

/// Grid cells upsampled by a small factor f (2...8) into screen pixels,
/// one channel: cell values a (planar, from `cells`; cells[8] must be
/// readable) to 8f pixels a + (mulhi(b − a, k·⌊32768/f⌉) << 1) at pixel k
/// of each cell, eight pixels a store, `groups` stores in all from `out`.
/// The same values as interpolating interval by interval (the compositor's
/// general path), without the per-interval setup that costs more than a
/// small interval's pixels: eight cells are loaded once and each group of
/// eight pixels picks its cells and fractions with constant lane patterns
/// (the pattern repeats every f groups, 8 cells). Pixels past the last
/// group's needed ones are spill, as in the general path.
#define CHAKRA_CELL(f, g, l) ((8 * (g) + (l)) / (f))
#define CHAKRA_PICK(v, f, g)                                                                                          \
    __builtin_shufflevector(v, v, CHAKRA_CELL(f, g, 0), CHAKRA_CELL(f, g, 1), CHAKRA_CELL(f, g, 2), CHAKRA_CELL(f, g, 3), \
                            CHAKRA_CELL(f, g, 4), CHAKRA_CELL(f, g, 5), CHAKRA_CELL(f, g, 6), CHAKRA_CELL(f, g, 7))
#define CHAKRA_Q(f, g, l) ((int16_t)((((8 * (g) + (l)) % (f)) * ((32768 + (f) / 2) / (f)))))
#define CHAKRA_FRACTIONS(f, g)                                                                                        \
    ((chakra_i16x8){CHAKRA_Q(f, g, 0), CHAKRA_Q(f, g, 1), CHAKRA_Q(f, g, 2), CHAKRA_Q(f, g, 3), CHAKRA_Q(f, g, 4),    \
                    CHAKRA_Q(f, g, 5), CHAKRA_Q(f, g, 6), CHAKRA_Q(f, g, 7)})
#define CHAKRA_GROUP_WITH(PRODUCT, f, g)                                                                              \
    if ((g) >= groups) return;                                                                                        \
    {                                                                                                                 \
        chakra_i16x8 v = CHAKRA_PICK(start, f, g) + PRODUCT(CHAKRA_PICK(step, f, g), CHAKRA_FRACTIONS(f, g));         \
        memcpy(out + 8 * (g), &v, 16);                                                                                \
    }
#define CHAKRA_BLOCKS_WITH(STEP, f, GROUPS)                                                                           \
    for (;;) {                                                                                                        \
        chakra_i16x8 start, next;                                                                                     \
        memcpy(&start, cells, 16);                                                                                    \
        memcpy(&next, cells + 1, 16);                                                                                 \
        chakra_i16x8 step = STEP(next - start);                                                                       \
        GROUPS                                                                                                        \
        groups -= (f);                                                                                                \
        cells += 8;                                                                                                   \
        out += 8 * (f);                                                                                               \
    }
#define CHAKRA_EXPAND_SWITCH(PRODUCT, STEP)                                                                           \
    switch (f) {                                                                                                      \
    case 2: CHAKRA_BLOCKS_WITH(STEP, 2, G(PRODUCT, 2, 0) G(PRODUCT, 2, 1))                                            \
    case 3: CHAKRA_BLOCKS_WITH(STEP, 3, G(PRODUCT, 3, 0) G(PRODUCT, 3, 1) G(PRODUCT, 3, 2))                           \
    case 4: CHAKRA_BLOCKS_WITH(STEP, 4, G(PRODUCT, 4, 0) G(PRODUCT, 4, 1) G(PRODUCT, 4, 2) G(PRODUCT, 4, 3))          \
    case 5: CHAKRA_BLOCKS_WITH(STEP, 5, G(PRODUCT, 5, 0) G(PRODUCT, 5, 1) G(PRODUCT, 5, 2) G(PRODUCT, 5, 3)           \
                                        G(PRODUCT, 5, 4))                                                             \
    case 6: CHAKRA_BLOCKS_WITH(STEP, 6, G(PRODUCT, 6, 0) G(PRODUCT, 6, 1) G(PRODUCT, 6, 2) G(PRODUCT, 6, 3)           \
                                        G(PRODUCT, 6, 4) G(PRODUCT, 6, 5))                                            \
    case 7: CHAKRA_BLOCKS_WITH(STEP, 7, G(PRODUCT, 7, 0) G(PRODUCT, 7, 1) G(PRODUCT, 7, 2) G(PRODUCT, 7, 3)           \
                                        G(PRODUCT, 7, 4) G(PRODUCT, 7, 5) G(PRODUCT, 7, 6))                           \
    case 8: CHAKRA_BLOCKS_WITH(STEP, 8, G(PRODUCT, 8, 0) G(PRODUCT, 8, 1) G(PRODUCT, 8, 2) G(PRODUCT, 8, 3)           \
                                        G(PRODUCT, 8, 4) G(PRODUCT, 8, 5) G(PRODUCT, 8, 6) G(PRODUCT, 8, 7))          \
    default: return;                                                                                                  \
    }
#define G CHAKRA_GROUP_WITH
#define CHAKRA_SAME(d) (d)

static inline void chakra_expand_cells(const int16_t *cells, int16_t *out, long groups, int f) {
    CHAKRA_EXPAND_SWITCH(chakra_mulhi_even, CHAKRA_SAME)
}

/// The same for the opaque base's rows, in its form: a + (2d·k/f) >> 1, the
/// difference doubled (`chakra_doubling`) so the product keeps every bit,
/// as the compositor's interval-by-interval `expandBase`.
static inline void chakra_expand_base_cells(const int16_t *cells, int16_t *out, long groups, int f) {
    CHAKRA_EXPAND_SWITCH(chakra_mulhi_doubling, chakra_doubling)
}
#undef G
#undef CHAKRA_SAME

#endif
