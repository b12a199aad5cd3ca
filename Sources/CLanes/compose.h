// The final pass's inner loop, fused: for each group of eight pixels of an
// output row, the base's vertical interpolation, every overlay that covers
// the group blended over it, and the dithered pack into the output, with
// the colour held in registers from first to last. Run as three passes
// (base, each blend, pack), every pass loaded and stored the fixed-point
// row again and paid its own loop; fused, a group costs its arithmetic and
// its loads of the layers' rows, little more.
//
// A row is cut into spans by the overlays' extents (and their holes): in a
// span the set of overlays covering it is fixed, so the loop over a span
// knows its overlays before it starts. The arithmetic is the compositor's,
// lane for lane (FrameCompositor documents it): frames are the same bytes
// as composing pass by pass.
//
// Loops index every array with one byte offset kept opaque to the
// optimiser (`CHAKRA_OFFSET`): left to itself, LLVM's loop strength
// reduction gives each array its own pointer and advances each, one add
// per array per group, where a register-offset load needs none.
#ifndef CHAKRA_COMPOSE_H
#define CHAKRA_COMPOSE_H

#include "shim.h"

/// How an overlay row is blended: one grid row at full weight (opacity 1,
/// on a grid row), one grid row at a weight, or two grid rows weighted.
enum { CHAKRA_OVER_FULL = 0, CHAKRA_OVER_WEIGHTED = 1, CHAKRA_OVER_TWO_ROWS = 2 };

/// Where an overlay stands to the base the row is given (see
/// `chakra_compose_row`): over it, folded into it (blended only where an
/// overlay under it is), or under a folded one.
enum { CHAKRA_ROLE_OVER = 0, CHAKRA_ROLE_FOLDED = 1, CHAKRA_ROLE_UNDER = 2 };

/// One overlay at one output row: its expanded grid rows (colour at twice
/// the row's scale, alpha in Q15), their weights in Q15, and the groups of
/// eight that may hold colour, [start, end) less [holeStart, holeEnd) (all
/// multiples of eight; the hole is empty when holeStart ≥ holeEnd).
typedef struct {
    const int16_t *red, *green, *blue, *alpha;
    const int16_t *nextRed, *nextGreen, *nextBlue, *nextAlpha;
    int16_t weight, nextWeight;
    int32_t mode;
    int32_t role;
    long start, end, holeStart, holeEnd;
} chakra_overlay_row;

/// The base at one output row: a grid row expanded, the step per output
/// row between it and its neighbour (`chakra_base_step`), and k: the row
/// is the grid row plus k steps (negative k: the next grid row, back; k =
/// 0: the grid row alone, the step not read).
typedef struct {
    const int16_t *red, *green, *blue;
    const int16_t *stepRed, *stepGreen, *stepBlue;
    int16_t k;
} chakra_base_row;

/// The per-row step from an expanded grid row a to the next, b, for a base
/// on a grid of factor f (2 or more) over `count` pixels (whole groups of
/// eight): (b − a)/f rounded, ⌊2(b − a + ⌊f/2⌋)·⌊32768/f⌉ / 65536⌋. Row k
/// of the interval is then a + k·step, one multiply-add a channel (NEON's
/// mla) where a + (2(b − a)·k/f) >> 1 took a high-half product and an add.
/// The rounded step is off by under a unit of 8.6 fixed point (½ from the
/// rounding, ¼ from ⌊32768/f⌉), and rows are taken from the nearer grid
/// row (|k| ≤ f/2): at most 3 units off at factor 8, 9 at factor 24, a
/// seventh of a level, far under the dither's. Base values are 0...16320: b − a + ⌊f/2⌋ fits
/// 16 bits doubled, and k·step fits too. The same lanes on both ISAs
/// (NEON: an add and sqdmulh a group and channel).
static inline void chakra_base_step(const int16_t *a, const int16_t *b, int16_t *out, long count, int f) {
    const chakra_i16x8 half = (int16_t)(f / 2), reciprocal = (int16_t)((32768 + f / 2) / f);
    for (long x = 0; x < count; x += 8) {
        chakra_i16x8 va, vb;
        memcpy(&va, a + x, 16);
        memcpy(&vb, b + x, 16);
        chakra_i16x8 step = chakra_mulhi_doubling(chakra_doubling(vb - va + half), reciprocal);
        memcpy(out + x, &step, 16);
    }
}

/// Where a composed row goes: 32-bit pixels (first, second, third byte as
/// `chakra_store_pixels32`; `redFirst` 0 for XRGB8888, 1 for XBGR8888)
/// dithered by `dither` (the Bayer indices of the row), streamed when
/// `stream`; or, for the other formats, back into a fixed-point row
/// (`pixels` NULL) that `PixelPacker` packs.
typedef struct {
    void *pixels;
    int16_t *red, *green, *blue;
    chakra_i16x8 dither;
    int32_t redFirst;
    int32_t stream;
} chakra_row_output;

#define CHAKRA_OFFSET(o) __asm__("" : "+r"(o))
#define CHAKRA_AT(p, o) (*(const chakra_i16x8 *)((const char *)(p) + (o)))

typedef struct {
    chakra_i16x8 r, g, b;
} chakra_rgb8;

/// The base's group at byte offset o; `stepped` 0 (a constant) where k is
/// 0: a grid row, or a row composed before (sharp content).
__attribute__((always_inline)) static inline chakra_rgb8 chakra_base_at(const chakra_base_row *base, int stepped, chakra_i16x8 k, long o) {
    if (!stepped) {
        chakra_rgb8 plain = {CHAKRA_AT(base->red, o), CHAKRA_AT(base->green, o), CHAKRA_AT(base->blue, o)};
        return plain;
    }
    chakra_rgb8 c = {
        CHAKRA_AT(base->red, o) + CHAKRA_AT(base->stepRed, o) * k,
        CHAKRA_AT(base->green, o) + CHAKRA_AT(base->stepGreen, o) * k,
        CHAKRA_AT(base->blue, o) + CHAKRA_AT(base->stepBlue, o) * k,
    };
    return c;
}

/// Source-over of one overlay on the group at byte offset o. `mode` is a
/// constant where the caller knows it, and the branches fold.
__attribute__((always_inline)) static inline void chakra_over_at(const chakra_overlay_row *v, int mode, chakra_i16x8 wa, chakra_i16x8 wb,
                                                                 long o, chakra_rgb8 *c) {
    const chakra_i16x8 zero = 0;
    chakra_i16x8 negAlpha, red, green, blue;
    if (mode == CHAKRA_OVER_TWO_ROWS) {
        negAlpha = zero - ((chakra_mulhi(CHAKRA_AT(v->alpha, o), wa) + chakra_mulhi(CHAKRA_AT(v->nextAlpha, o), wb)) << 1);
        red = chakra_mulhi(CHAKRA_AT(v->red, o), wa) + chakra_mulhi(CHAKRA_AT(v->nextRed, o), wb);
        green = chakra_mulhi(CHAKRA_AT(v->green, o), wa) + chakra_mulhi(CHAKRA_AT(v->nextGreen, o), wb);
        blue = chakra_mulhi(CHAKRA_AT(v->blue, o), wa) + chakra_mulhi(CHAKRA_AT(v->nextBlue, o), wb);
    } else if (mode == CHAKRA_OVER_FULL) {
        negAlpha = zero - CHAKRA_AT(v->alpha, o);
        red = CHAKRA_AT(v->red, o) >> 1;
        green = CHAKRA_AT(v->green, o) >> 1;
        blue = CHAKRA_AT(v->blue, o) >> 1;
    } else {
        negAlpha = zero - chakra_mulhi_even(CHAKRA_AT(v->alpha, o), wa);
        red = chakra_mulhi(CHAKRA_AT(v->red, o), wa);
        green = chakra_mulhi(CHAKRA_AT(v->green, o), wa);
        blue = chakra_mulhi(CHAKRA_AT(v->blue, o), wa);
    }
    c->r = red + c->r + chakra_mulhi_doubled(c->r, negAlpha);
    c->g = green + c->g + chakra_mulhi_doubled(c->g, negAlpha);
    c->b = blue + c->b + chakra_mulhi_doubled(c->b, negAlpha);
}

/// Where a span's packed pixels go, group by group. On NEON a pointer of
/// its own, advanced by each store (st4's post-index form: an offset cost
/// an add a group there); elsewhere the row plus the group's byte offset,
/// which x86's addressing adds for free.
#if defined(__ARM_NEON)
#define CHAKRA_PIXELS_START(out, lo) char *pixelsAt = packed ? (char *)(out)->pixels + 2 * (lo) : NULL
#define CHAKRA_PIXELS(out, o) pixelsAt
#define CHAKRA_PIXELS_NEXT() (pixelsAt += 32)
#else
#define CHAKRA_PIXELS_START(out, lo) ((void)0)
#define CHAKRA_PIXELS(out, o) ((char *)(out)->pixels + 2 * (o))
#define CHAKRA_PIXELS_NEXT() ((void)0)
#endif

/// The composed group at byte offset o (pixel o / 2) to the output, the
/// packed pixels at `pixels`: `packed` and `stream` are constants where
/// the caller knows them. Red goes third (XRGB8888); for XBGR8888 the
/// caller swaps red and blue in every input instead.
__attribute__((always_inline)) static inline void chakra_emit_at(const chakra_row_output *out, int packed, int stream, long o,
                                                                 char *pixels, chakra_rgb8 c) {
    if (packed) {
        chakra_store_dithered32(c.b, c.g, c.r, out->dither, pixels, stream);
    } else {
        memcpy((char *)out->red + o, &c.r, 16);
        memcpy((char *)out->green + o, &c.g, 16);
        memcpy((char *)out->blue + o, &c.b, 16);
    }
}

/// Groups [lo, hi) (byte offsets) with `count` overlays, `active`, over
/// every group. One overlay, the common case (the glow over most of the
/// heart), gets a loop of its own per mode.
__attribute__((always_inline)) static inline void chakra_compose_span(const chakra_base_row *baseRow, const chakra_overlay_row *const *active,
                                                                      int count, const chakra_row_output *output, int packed, int stream,
                                                                      int stepped, long lo, long hi) {
    // Copies the stores cannot alias: their fields stay in registers.
    const chakra_base_row base_ = *baseRow, *base = &base_;
    const chakra_row_output out_ = *output, *out = &out_;
    const chakra_i16x8 k = base->k;
    CHAKRA_PIXELS_START(out, lo);
    if (count == 0) {
        for (long o = lo; o < hi; o += 16) {
            CHAKRA_OFFSET(o);
            chakra_emit_at(out, packed, stream, o, CHAKRA_PIXELS(out, o), chakra_base_at(base, stepped, k, o));
            CHAKRA_PIXELS_NEXT();
        }
    } else if (count == 1) {
        const chakra_overlay_row v = *active[0];
        const chakra_i16x8 wa = v.weight, wb = v.nextWeight;
        switch (v.mode) {
#define CHAKRA_ONE_OVERLAY(MODE)                                                                                      \
    case MODE:                                                                                                        \
        for (long o = lo; o < hi; o += 16) {                                                                          \
            CHAKRA_OFFSET(o);                                                                                         \
            chakra_rgb8 c = chakra_base_at(base, stepped, k, o);                                                               \
            chakra_over_at(&v, MODE, wa, wb, o, &c);                                                                  \
            chakra_emit_at(out, packed, stream, o, CHAKRA_PIXELS(out, o), c);                                         \
            CHAKRA_PIXELS_NEXT();                                                                                     \
        }                                                                                                             \
        break;
            CHAKRA_ONE_OVERLAY(CHAKRA_OVER_FULL)
            CHAKRA_ONE_OVERLAY(CHAKRA_OVER_WEIGHTED)
            CHAKRA_ONE_OVERLAY(CHAKRA_OVER_TWO_ROWS)
#undef CHAKRA_ONE_OVERLAY
        }
    } else if (count == 2) {
        // Two overlays (the heart's shape and centre where they overlap):
        // copies of both, so their rows' pointers stay in registers where
        // the general loop reloads them every group.
        const chakra_overlay_row v0 = *active[0], v1 = *active[1];
        for (long o = lo; o < hi; o += 16) {
            CHAKRA_OFFSET(o);
            chakra_rgb8 c = chakra_base_at(base, stepped, k, o);
            chakra_over_at(&v0, v0.mode, v0.weight, v0.nextWeight, o, &c);
            chakra_over_at(&v1, v1.mode, v1.weight, v1.nextWeight, o, &c);
            chakra_emit_at(out, packed, stream, o, CHAKRA_PIXELS(out, o), c);
            CHAKRA_PIXELS_NEXT();
        }
    } else {
        for (long o = lo; o < hi; o += 16) {
            CHAKRA_OFFSET(o);
            chakra_rgb8 c = chakra_base_at(base, stepped, k, o);
            for (int n = 0; n < count; n++) {
                const chakra_overlay_row *v = active[n];
                chakra_over_at(v, v->mode, v->weight, v->nextWeight, o, &c);
            }
            chakra_emit_at(out, packed, stream, o, CHAKRA_PIXELS(out, o), c);
            CHAKRA_PIXELS_NEXT();
        }
    }
}

/// The span loops, one function per output kind: as one function, the
/// register allocator kept loop invariants on the stack and reloaded them
/// every group (x86-64 has 16 registers for all the loops' pointers).
#define CHAKRA_SPAN_VARIANT(NAME, PACKED, STREAM, STEPPED)                                                            \
    __attribute__((noinline)) static void NAME(const chakra_base_row *base, const chakra_overlay_row *const *active,   \
                                               int count, const chakra_row_output *out, long lo, long hi) {            \
        chakra_compose_span(base, active, count, out, PACKED, STREAM, STEPPED, lo, hi);                               \
    }
CHAKRA_SPAN_VARIANT(chakra_span_row_stepped, 0, 0, 1)
CHAKRA_SPAN_VARIANT(chakra_span_row, 0, 0, 0)
CHAKRA_SPAN_VARIANT(chakra_span_streamed_stepped, 1, 1, 1)
CHAKRA_SPAN_VARIANT(chakra_span_streamed, 1, 1, 0)
CHAKRA_SPAN_VARIANT(chakra_span_packed_stepped, 1, 0, 1)
CHAKRA_SPAN_VARIANT(chakra_span_packed, 1, 0, 0)
#undef CHAKRA_SPAN_VARIANT

static inline void chakra_swap_base(chakra_base_row *base) {
    const int16_t *t;
    t = base->red, base->red = base->blue, base->blue = t;
    t = base->stepRed, base->stepRed = base->stepBlue, base->stepBlue = t;
}

/// The base alone over the groups [spans[2i], spans[2i + 1]) (pixel
/// indices, multiples of eight) into the fixed-point row `out`: where a
/// row's sharp content lands, the base it is painted over.
static inline void chakra_compose_base_spans(const chakra_base_row *base, const long *spans, int count,
                                             const chakra_row_output *out) {
    for (int i = 0; i < count; i++) {
        if (base->k != 0) chakra_span_row_stepped(base, NULL, 0, out, 2 * spans[2 * i], 2 * spans[2 * i + 1]);
        else chakra_span_row(base, NULL, 0, out, 2 * spans[2 * i], 2 * spans[2 * i + 1]);
    }
}

/// Where a row's sharp content is: `row` (the base with that content
/// painted over it, a zero step) takes the base's place over the groups
/// [spans[2i], spans[2i + 1]), ascending and disjoint. `count` 0: none.
typedef struct {
    const chakra_base_row *row;
    const long *spans;
    int count;
} chakra_sharp_spans;

/// Composes pixels [0, width) of one output row: the base, then
/// `overlays[0..<count]` in order, then the output. Rows are padded
/// (FixedRow), so every group of eight is read whole; only the packed
/// output's last group is cut to `width`. `overlays`, `edges` (4·count + 2
/// + 2·sharp->count entries) and `active` (count) are the caller's scratch
/// for this row: for XBGR8888 output the overlays' red and blue are
/// swapped in place.
///
/// `sharp` (may be NULL): spans whose base is a row with sharp content
/// painted in already.
///
/// Folding: `baseRow` may hold overlays of role FOLDED already (blended at
/// its grid points, far cheaper than per pixel). A span that an UNDER
/// overlay covers (one that lies below a folded one) cannot use it: there
/// `plainRow`, the base without them, takes its place and every overlay
/// covering the span is blended in order, the folded ones included. Spans
/// without an UNDER overlay skip the folded ones. `plainRow` may be NULL
/// when no overlay of the row is UNDER.
__attribute__((always_inline)) static inline void chakra_compose_row_with(const chakra_base_row *baseRow, const chakra_base_row *plainRow,
                                                                          chakra_overlay_row *overlays, int count,
                                                                          const chakra_row_output *out, long width, long *edges,
                                                                          const chakra_overlay_row **active,
                                                                          const chakra_sharp_spans *sharp) {
    chakra_base_row swapped = *baseRow, plainSwapped = plainRow != NULL ? *plainRow : *baseRow;
    const int sharpCount = sharp != NULL ? sharp->count : 0;
    chakra_base_row sharpSwapped = sharpCount > 0 ? *sharp->row : *baseRow;
    if (out->pixels != NULL && out->redFirst) {
        const int16_t *t;
        chakra_swap_base(&swapped);
        chakra_swap_base(&plainSwapped);
        chakra_swap_base(&sharpSwapped);
        for (int k = 0; k < count; k++) {
            chakra_overlay_row *v = &overlays[k];
            t = v->red, v->red = v->blue, v->blue = t;
            t = v->nextRed, v->nextRed = v->nextBlue, v->nextBlue = t;
        }
    }
    // Span edges: 0, the end of the row's groups, each overlay's extent
    // and hole, clipped to the row; sorted (a few dozen at most).
    long whole = width & ~7L, groups = (width + 7) & ~7L;
    int n = 0;
    edges[n++] = 0;
    edges[n++] = groups;
    for (int k = 0; k < count; k++) {
        const chakra_overlay_row *v = &overlays[k];
        edges[n++] = v->start;
        edges[n++] = v->end;
        if (v->holeStart < v->holeEnd) {
            edges[n++] = v->holeStart;
            edges[n++] = v->holeEnd;
        }
    }
    for (int i = 0; i < n; i++) {
        long e = edges[i] < 0 ? 0 : edges[i] > groups ? groups : edges[i];
        int j = i;
        for (; j > 0 && edges[j - 1] > e; j--) edges[j] = edges[j - 1];
        edges[j] = e;
    }
    // The sharp spans' edges, sorted already (and within the row): merged
    // in from the back, where sorting them in cost more than their spans
    // saved.
    for (int i = n - 1, k = 2 * sharpCount - 1, to = n + 2 * sharpCount - 1; k >= 0; to--) {
        if (i >= 0 && edges[i] > sharp->spans[k]) edges[to] = edges[i--];
        else edges[to] = sharp->spans[k--];
    }
    n += 2 * sharpCount;
    const int packed = out->pixels != NULL;
    int nextSharp = 0;
    for (int s = 0; s + 1 < n; s++) {
        long lo = edges[s], hi = edges[s + 1];
        if (lo >= hi) continue;
        while (nextSharp < sharpCount && sharp->spans[2 * nextSharp + 1] <= lo) nextSharp++;
        const int inSharp = nextSharp < sharpCount && lo >= sharp->spans[2 * nextSharp];
        int m = 0, under = 0, folded = 0;
        for (int k = 0; k < count; k++) {
            const chakra_overlay_row *v = &overlays[k];
            int inHole = v->holeStart < v->holeEnd && lo >= v->holeStart && lo < v->holeEnd;
            if (lo >= v->start && lo < v->end && !inHole) {
                under |= v->role == CHAKRA_ROLE_UNDER;
                folded |= v->role == CHAKRA_ROLE_FOLDED;
                active[m++] = v;
            }
        }
        const chakra_base_row *base = inSharp ? &sharpSwapped : under && plainRow != NULL ? &plainSwapped : &swapped;
        if (folded && base == &swapped) {
            // The base holds them already.
            int kept = 0;
            for (int k = 0; k < m; k++)
                if (active[k]->role != CHAKRA_ROLE_FOLDED) active[kept++] = active[k];
            m = kept;
        }
        const int stepped = base->k != 0;
        // The packed output's partial last group goes through a buffer.
        long cut = packed && hi > whole ? whole : hi;
        if (lo < cut) {
            // Each case a loop of its own, its constants folded.
            if (!packed && stepped) chakra_span_row_stepped(base, active, m, out, 2 * lo, 2 * cut);
            else if (!packed) chakra_span_row(base, active, m, out, 2 * lo, 2 * cut);
            else if (out->stream && stepped) chakra_span_streamed_stepped(base, active, m, out, 2 * lo, 2 * cut);
            else if (out->stream) chakra_span_streamed(base, active, m, out, 2 * lo, 2 * cut);
            else if (stepped) chakra_span_packed_stepped(base, active, m, out, 2 * lo, 2 * cut);
            else chakra_span_packed(base, active, m, out, 2 * lo, 2 * cut);
        }
        if (cut < hi) {
            uint32_t tail[8] __attribute__((aligned(16)));
            chakra_row_output buffered = *out;
            buffered.pixels = (char *)tail - 4 * whole;
            buffered.stream = 0;
            chakra_span_packed_stepped(base, active, m, &buffered, 2 * whole, 2 * hi);
            memcpy((char *)out->pixels + 4 * whole, tail, 4 * (width - whole));
        }
    }
}

/// Rows without sharp content: the sharp spans' work compiled out (it cost
/// the heart 70 instructions a row).
static inline void chakra_compose_row(const chakra_base_row *baseRow, const chakra_base_row *plainRow, chakra_overlay_row *overlays,
                                      int count, const chakra_row_output *out, long width, long *edges,
                                      const chakra_overlay_row **active) {
    chakra_compose_row_with(baseRow, plainRow, overlays, count, out, width, edges, active, NULL);
}

/// Rows with sharp content in `sharp` (count > 0).
static inline void chakra_compose_row_sharp(const chakra_base_row *baseRow, chakra_overlay_row *overlays, int count,
                                            const chakra_row_output *out, long width, long *edges,
                                            const chakra_overlay_row **active, const chakra_sharp_spans *sharp) {
    chakra_compose_row_with(baseRow, NULL, overlays, count, out, width, edges, active, sharp);
}

#endif
