// The blurred ellipse's table lookups (BlurredEllipse.evaluate), four grid
// cells a step. Written here rather than in Swift because each cell reads
// its own table entries, so the loop must take lanes apart: Swift, given
// lanes by a run-time index, sent every vector through the stack, and
// given them by constant indices, LLVM turned the whole step scalar on
// x86-64. Here the radius, table position and direction weight stay four
// lanes wide and only the reads and the colour's interpolation are per
// cell.
//
// The same lanes on both ISAs: IEEE single precision, the operations
// Swift's version did in its order, and no fused multiply-add (contraction
// is off below: NEON would fuse what SSE2 rounds twice).
#ifndef CHAKRA_ELLIPSE_H
#define CHAKRA_ELLIPSE_H

#include "shim.h"

typedef float chakra_f32x4 __attribute__((ext_vector_type(4)));
typedef uint32_t chakra_u32x4 __attribute__((ext_vector_type(4)));

#pragma clang fp contract(off)

/// √ of each lane: sqrtps, fsqrt (clang's __builtin_elementwise_sqrt is
/// newer than Swift 6.0.3's).
__attribute__((always_inline)) static inline chakra_f32x4 chakra_sqrt4(chakra_f32x4 v) {
#if defined(__SSE2__)
    return (chakra_f32x4)__builtin_ia32_sqrtps(v);
#elif defined(__ARM_NEON)
    return (chakra_f32x4)vsqrtq_f32((float32x4_t)v);
#else
    chakra_f32x4 r = {__builtin_sqrtf(v[0]), __builtin_sqrtf(v[1]), __builtin_sqrtf(v[2]), __builtin_sqrtf(v[3])};
    return r;
#endif
}

/// Entry k of an RGBA table and the next, mixed by f.
__attribute__((always_inline)) static inline chakra_f32x4 chakra_table_at(const chakra_f32x4 *table, uint32_t k, float f) {
    chakra_f32x4 a = table[k], b = table[k + 1];
    return a + (b - a) * f;
}

/// Cells [first, end) of a row: cell i at normalised (x0 + i·dx, y), its
/// radius t = √(x² + y²) read from `tableX` (and `tableY`, mixed by the
/// direction's weight x²/t², unless `circular`) at position t·scale,
/// clamped to `limit`. As `BlurredEllipse.evaluate` documents.
static inline void chakra_ellipse_cells(const chakra_f32x4 *tableX, const chakra_f32x4 *tableY, int circular, chakra_f32x4 *row,
                                        long first, long end, float x0, float dx, float y, float scale, float limit) {
    const chakra_f32x4 ramp = {0, 1, 2, 3};
    const chakra_f32x4 magic = 12582912.0f, half = 0.5f, limits = limit, scales = scale;
    const chakra_f32x4 y2 = y * y, step = 4 * dx;
    chakra_f32x4 xs = (chakra_f32x4)x0 + (chakra_f32x4)dx * ((chakra_f32x4)(float)first + ramp);
    for (long i = first; i < end; i += 4) {
        chakra_f32x4 x2 = xs * xs;
        chakra_f32x4 t2 = x2 + y2;
        chakra_f32x4 p = __builtin_elementwise_min(chakra_sqrt4(t2) * scales, limits);
        // round(p − ½) = floor(p) but at whole p (the 1.5·2²³ trick).
        chakra_f32x4 shifted = p - half + magic;
        chakra_f32x4 fraction = p - (shifted - magic);
        chakra_u32x4 index;
        memcpy(&index, &shifted, 16);
        index -= 0x4B400000u;
        // The direction's weight (x/a)²/t²; ½ at the centre.
        chakra_f32x4 weightX = (x2 + 0.5e-12f) / (t2 + 1e-12f);
        long count = end - i < 4 ? end - i : 4;
#define CHAKRA_ELLIPSE_CELL(lane)                                                                                     \
    if ((lane) < count) {                                                                                             \
        chakra_f32x4 alongX = chakra_table_at(tableX, index[lane], fraction[lane]);                                   \
        if (circular) {                                                                                               \
            row[i + (lane)] = alongX;                                                                                 \
        } else {                                                                                                      \
            chakra_f32x4 alongY = chakra_table_at(tableY, index[lane], fraction[lane]);                               \
            row[i + (lane)] = alongY + (alongX - alongY) * weightX[lane];                                             \
        }                                                                                                             \
    }
        CHAKRA_ELLIPSE_CELL(0)
        CHAKRA_ELLIPSE_CELL(1)
        CHAKRA_ELLIPSE_CELL(2)
        CHAKRA_ELLIPSE_CELL(3)
#undef CHAKRA_ELLIPSE_CELL
        xs += step;
    }
}

/// A blurred disc's opacity at four table positions (`BlurredGradientDisc.
/// View.discOpacity`, lane by lane, the same operations): 0 at or past
/// entry `last`, else the two entries around it mixed, clamped to 0...1;
/// lanes from `count` on are 0.
__attribute__((always_inline)) static inline chakra_f32x4 chakra_disc_opacities(const float *solid, int last, chakra_f32x4 positions,
                                                                               int count) {
    chakra_f32x4 out = 0;
#define CHAKRA_DISC_LANE(lane)                                                                                        \
    if ((lane) < count && positions[lane] < (float)last) {                                                            \
        float p = positions[lane];                                                                                    \
        int i = (int)p;                                                                                               \
        float f = p - (float)i;                                                                                       \
        float v = solid[i] + (solid[i + 1] - solid[i]) * f;                                                           \
        v = 0.0f >= v ? 0.0f : v;                                                                                     \
        out[lane] = 1.0f < v ? 1.0f : v;                                                                              \
    }
    CHAKRA_DISC_LANE(0)
    CHAKRA_DISC_LANE(1)
    CHAKRA_DISC_LANE(2)
    CHAKRA_DISC_LANE(3)
#undef CHAKRA_DISC_LANE
    return out;
}

/// `chakra_disc_opacities` of four pixels of a row: pixel centres `centre`,
/// `centre` + 1, … at normalised x = (centre + lane − cx)·inverse and
/// normalised y `y`, their table positions √(x² + y²)·positionScale in
/// lanes (`BlurredGradientDisc.View.positions`, the same operations).
__attribute__((always_inline)) static inline chakra_f32x4 chakra_disc_row_opacities(const float *solid, int last, float positionScale,
                                                                                   float centre, float cx, float inverse, float y,
                                                                                   int count) {
    const chakra_f32x4 ramp = {0, 1, 2, 3};
    chakra_f32x4 d = ((chakra_f32x4)centre + ramp - cx) * inverse;
    chakra_f32x4 positions = chakra_sqrt4(d * d + y * y) * positionScale;
    return chakra_disc_opacities(solid, last, positions, count);
}

/// Whether any lane is above 0.
__attribute__((always_inline)) static inline int chakra_any_positive(chakra_f32x4 v) {
    return (v[0] > 0) | (v[1] > 0) | (v[2] > 0) | (v[3] > 0);
}

#pragma clang fp contract(on)

#endif
