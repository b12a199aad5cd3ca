// The spiral's track painted into a fixed-point row (`FixedRow`: planar
// 16-bit lanes, 1.0 = 16320), eight pixels a step.
//
// A track pixel has two colours for the scene's life: unfilled (the track's
// colour times the pixel's coverage) and filled (the progress colour at its
// path length times its coverage). A frame only chooses between them by
// comparing the pixel's path length with the coloured length, with a
// one-pixel ramp across the cut where the two are mixed. Both colours are
// kept per pixel in the terms of a source-over (`chakra_track_colours`), so
// a pixel costs a blend: p + s + (p · −α) >> 15 per channel. It rounds the
// colour and the product apart where `FixedRow.blend` rounded their sum once
// (ties to even), so a pixel is within one row unit (1/64 of a level) of
// what the float path gave; opaque pixels are exact.
//
// A run whose path lengths all lie before the ramp, or all after it (all
// but a few of a frame's runs), blends one colour array without looking at
// lengths; a run the ramp may cross chooses per lane, as the float path did
// per pixel: the lane's weight is min(max(fill − s + 0.5, 0), 1), computed
// in the same float operations, so the choice of unfilled, filled or mixed
// is the same pixel for pixel.
//
// A run's last group may hold fewer than eight of its pixels: the lanes past
// its end blend a transparent colour (s = 0, α = 0), so their pixels are
// read and written back unchanged. Runs lie in [0, width) and start their
// groups at their first pixel, so those lanes are within the row's padding
// past `width`, never before 0.
//
// (SwiftPM does not track this header: after editing it, touch
// SpiralPainter.swift, or the build keeps the old code inlined.)
#ifndef CHAKRA_TRACK_H
#define CHAKRA_TRACK_H

#include "shim.h"

/// A colour for each track pixel, in run order, planar: each channel of the
/// premultiplied colour times 16320 (`FixedRow.one`), and minus its alpha
/// in Q15 (−32768: opaque, which the blend makes exact): as
/// `FixedRow.overTerms` gives them. Every array is readable for eight lanes
/// past the last pixel.
typedef struct {
    const int16_t *red, *green, *blue, *negAlpha;
} chakra_track_colours;

/// `count` pixels from column x; their colours and lengths are at
/// [offset, offset + count) of the arrays. `shortest` and `longest`: the
/// least and greatest path length among them.
typedef struct {
    int32_t x, count, offset;
    float shortest, longest;
} chakra_track_run;

/// The track: its runs, its pixels' two colours and path lengths (`along`,
/// readable for eight lanes past the last pixel). The filled colour is at
/// least as opaque as the unfilled one at every pixel.
typedef struct {
    const chakra_track_run *runs;
    chakra_track_colours unfilled, filled;
    const float *along;
} chakra_track;

/// Lanes [0, n) set, the rest clear, at `chakra_track_lanes + 8 − n`.
static const int16_t chakra_track_lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

typedef float chakra_f32x4 __attribute__((ext_vector_type(4)));

/// Eight lanes at byte offset o of p, which need not be aligned: runs
/// start at any pixel.
static inline chakra_i16x8 chakra_track_load(const void *p, long o) {
    chakra_i16x8 v;
    memcpy(&v, (const char *)p + o, 16);
    return v;
}
#define CHAKRA_TRACK_AT(p, o) chakra_track_load(p, o)
/// One byte offset for every array, kept opaque to the optimiser (as
/// compose.h's `CHAKRA_OFFSET`): register-offset loads, no pointer each.
#define CHAKRA_TRACK_OFFSET(o) __asm__("" : "+r"(o))

/// Source-over of (s, negAlpha) on the row's group at byte offset o of
/// `red`, `green`, `blue`. p + (p · −α) >> 15 is p − ⌈p·α⌉, exact for α = 1
/// (p ≤ 16383 on SSE2, where the product takes 2p).
__attribute__((always_inline)) static inline void chakra_track_over(char *red, char *green, char *blue, long o, chakra_i16x8 r,
                                                                    chakra_i16x8 g, chakra_i16x8 b, chakra_i16x8 negAlpha) {
    chakra_i16x8 pr = CHAKRA_TRACK_AT(red, o), pg = CHAKRA_TRACK_AT(green, o), pb = CHAKRA_TRACK_AT(blue, o);
    pr = pr + r + chakra_mulhi_doubled(pr, negAlpha);
    pg = pg + g + chakra_mulhi_doubled(pg, negAlpha);
    pb = pb + b + chakra_mulhi_doubled(pb, negAlpha);
    memcpy(red + o, &pr, 16);
    memcpy(green + o, &pg, 16);
    memcpy(blue + o, &pb, 16);
}

/// A run in one colour: `c`'s arrays from the run's offset over the row
/// from its x.
__attribute__((always_inline)) static inline void chakra_track_run_in(const chakra_track_colours *c, const chakra_track_run *run,
                                                                      int16_t *red, int16_t *green, int16_t *blue) {
    const char *cr = (const char *)(c->red + run->offset), *cg = (const char *)(c->green + run->offset);
    const char *cb = (const char *)(c->blue + run->offset), *ca = (const char *)(c->negAlpha + run->offset);
    char *pr = (char *)(red + run->x), *pg = (char *)(green + run->x), *pb = (char *)(blue + run->x);
    long end = 2 * (long)run->count, o = 0;
    for (; o + 16 <= end; o += 16) {
        CHAKRA_TRACK_OFFSET(o);
        chakra_track_over(pr, pg, pb, o, CHAKRA_TRACK_AT(cr, o), CHAKRA_TRACK_AT(cg, o), CHAKRA_TRACK_AT(cb, o),
                          CHAKRA_TRACK_AT(ca, o));
    }
    if (o < end) {
        chakra_i16x8 lanes;
        memcpy(&lanes, chakra_track_lanes + 8 - (end - o) / 2, 16);
        chakra_track_over(pr, pg, pb, o, CHAKRA_TRACK_AT(cr, o) & lanes, CHAKRA_TRACK_AT(cg, o) & lanes,
                          CHAKRA_TRACK_AT(cb, o) & lanes, CHAKRA_TRACK_AT(ca, o) & lanes);
    }
}

/// u + (f − u)·w for a lane's negative weight nw = −w·32768: exact at
/// w = 0 and w = 1 (|f − u| ≤ 16383 on SSE2, where the product takes it
/// doubled).
static inline chakra_i16x8 chakra_track_mix(chakra_i16x8 u, chakra_i16x8 f, chakra_i16x8 nw) {
    return u - chakra_mulhi_doubled(f - u, nw);
}

/// A run the ramp may cross: per lane the unfilled colour, the filled one,
/// or their mix.
static inline void chakra_track_run_mixed(const chakra_track *track, const chakra_track_run *run, float fill, int16_t *red,
                                          int16_t *green, int16_t *blue) {
    const chakra_track_colours u = track->unfilled, f = track->filled;
    const long at = run->offset;
    char *pr = (char *)(red + run->x), *pg = (char *)(green + run->x), *pb = (char *)(blue + run->x);
    const chakra_f32x4 zero = 0, one = 1;
    const chakra_i16x8 opaque = -32768;
    for (long i = 0; i < run->count; i += 8) {
        chakra_f32x4 s0, s1;
        memcpy(&s0, track->along + at + i, 16);
        memcpy(&s1, track->along + at + i + 4, 16);
        // As the float path: w = min(max(fill − s + 0.5, 0), 1).
        chakra_f32x4 w0 = __builtin_elementwise_min(__builtin_elementwise_max(fill - s0 + 0.5f, zero), one);
        chakra_f32x4 w1 = __builtin_elementwise_min(__builtin_elementwise_max(fill - s1 + 0.5f, zero), one);
        chakra_i32x4 n0 = __builtin_convertvector(w0 * -32768.0f, chakra_i32x4);
        chakra_i32x4 n1 = __builtin_convertvector(w1 * -32768.0f, chakra_i32x4);
        chakra_i16x8 nw = __builtin_convertvector(__builtin_shufflevector(n0, n1, 0, 1, 2, 3, 4, 5, 6, 7), chakra_i16x8);
        const long o = 2 * (at + i);
        chakra_i16x8 ua = CHAKRA_TRACK_AT(u.negAlpha, o), fa = CHAKRA_TRACK_AT(f.negAlpha, o);
        // Alpha: f − u may not fit doubled; the mix's end w = 1 taken as is.
        chakra_i16x8 full = nw == opaque;
        chakra_i16x8 a = (fa & full) | ((ua - chakra_mulhi_even(fa - ua, nw)) & ~full);
        chakra_i16x8 r = chakra_track_mix(CHAKRA_TRACK_AT(u.red, o), CHAKRA_TRACK_AT(f.red, o), nw);
        chakra_i16x8 g = chakra_track_mix(CHAKRA_TRACK_AT(u.green, o), CHAKRA_TRACK_AT(f.green, o), nw);
        chakra_i16x8 b = chakra_track_mix(CHAKRA_TRACK_AT(u.blue, o), CHAKRA_TRACK_AT(f.blue, o), nw);
        if (run->count - i < 8) {
            chakra_i16x8 lanes;
            memcpy(&lanes, chakra_track_lanes + 8 - (run->count - i), 16);
            r &= lanes;
            g &= lanes;
            b &= lanes;
            a &= lanes;
        }
        chakra_track_over(pr, pg, pb, 2 * i, r, g, b, a);
    }
}

/// The track's runs [first, end) (one screen row's) blended into the row
/// `red`, `green`, `blue` with the coloured length `fill` (screen pixels;
/// negative: none).
static inline void chakra_paint_track(const chakra_track *track, long first, long end, float fill, int16_t *red, int16_t *green,
                                      int16_t *blue) {
    for (long k = first; k < end; k++) {
        const chakra_track_run *run = track->runs + k;
        // The weight fill − s + 0.5 is monotonic in s (each float
        // operation is), so the run's extremes decide for all its pixels
        // as the per-pixel test would.
        if (fill - run->shortest + 0.5f <= 0) {
            chakra_track_run_in(&track->unfilled, run, red, green, blue);
        } else if (fill - run->longest + 0.5f >= 1) {
            chakra_track_run_in(&track->filled, run, red, green, blue);
        } else {
            chakra_track_run_mixed(track, run, fill, red, green, blue);
        }
    }
}

#endif
