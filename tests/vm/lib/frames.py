"""Tells what a screendump shows: the scene, a black screen, or console text.

Used by the QMP watcher's sampler (host/qmp-watcher.py, 10 screendumps a
second or more around a restart, an upgrade, a boot or a shutdown) to
count, for issue 30, the frames in which a kiosk showed something other
than its picture. Stdlib only, as images.py (no PIL or numpy on CI), and
fast enough for that rate: the per-pixel work is done by bytes.translate,
big-integer OR and re.finditer, which run in C; Python loops only over runs
of lit pixels.

The classes, in the order they are tested:

text
    Console text: the Linux console (fbcon's login prompt, boot or
    shutdown messages) or firmware text. Such a screen is text on a dark
    background, drawn with a bitmap font without anti-aliasing, so it has
    many small, sharp, glyph-like connected components standing on shared
    baselines. The rule, with the thresholds below:

    - the background is dark: at most MAX_LIT_FRACTION (30 %) of the
      pixels have a channel above DARK (32). A full screen of console
      text lights about 15 %; the scenes light most of the screen.
    - components: 8-connected regions of *ink* pixels (a channel above
      INK, 64), found from the runs of ink on each row.
    - glyph-like: a component whose bounding box is GLYPH_MIN_HEIGHT to
      GLYPH_MAX_HEIGHT (5-48) pixels high and at most GLYPH_MAX_WIDTH (40)
      wide, with GLYPH_MIN_PIXELS (4) ink pixels or more, filling at most
      GLYPH_MAX_FILL (85 %) of its box (a solid block, such as a cursor,
      is not a glyph), and *sharp*: at least SHARP_FRACTION (80 %) of the
      pixels just left and right of its runs are dark (no channel above
      DARK). An anti-aliased or soft shape (a glow, a particle, text drawn
      with FreeType) has half-lit pixels at its edge and is not sharp.
    - on a baseline: its bottom row is shared (within 1 pixel) with at
      least BASELINE_PEERS (2) other glyph-like components: letters of a
      line of text stand on one row; scattered dots do not.
    - a text frame has at least MIN_GLYPHS (10) glyph-like components on
      baselines. The login prompt of a Debian guest ("Debian GNU/Linux 12
      kiosk tty1", "kiosk login:") has about 45; one line of a boot or
      shutdown message 20 or more; a lone cursor or a stray character
      is not text.

    One exception: QEMU's own notices that the guest shows nothing
    ("Guest has not initialized the display (yet).", "Display output is
    not active."), drawn by QEMU on a black screen as one line at its
    centre, are black: on a real panel the output is simply off. A text
    frame whose ink lies in one band at most NOTICE_MAX_HEIGHT (24)
    pixels high, centred within NOTICE_SLACK (16) pixels both ways, is
    such a notice; the Linux console never centres a lone line.

black
    Not text, and at most BLACK_LIT_FRACTION (0.2 %) of the pixels have a
    channel above BLACK_LEVEL (8): the panel showing nothing (a console cleared,
    a display between two owners, a modeset). A few lit pixels (a cursor,
    one character) are still black; a picture dimmed to a tenth of its
    brightness (chakrad's dimming, a fade's first frames) is not.

scene
    Anything else: a picture (chakrad's heart, spiral, drift, or any
    other program's).

`python3 frames.py IMAGE...` prints each image's class and its measures.
"""

import re
import sys
from collections import Counter

BLACK_LEVEL = 8
DARK = 32
INK = 64
MAX_LIT_FRACTION = 0.30
BLACK_LIT_FRACTION = 0.002
GLYPH_MIN_HEIGHT = 5
GLYPH_MAX_HEIGHT = 48
GLYPH_MAX_WIDTH = 40
GLYPH_MIN_PIXELS = 4
GLYPH_MAX_FILL = 0.85
SHARP_FRACTION = 0.80
BASELINE_PEERS = 2
MIN_GLYPHS = 10
NOTICE_MAX_HEIGHT = 24
NOTICE_SLACK = 16
# Past this many runs of ink the screen is a texture, not text: the
# component search stops (it is the only part whose cost grows with
# what is on the screen).
MAX_RUNS = 60000

SCENE, BLACK, TEXT = "scene", "black", "text"
CLASSES = (SCENE, BLACK, TEXT)

_RUN = re.compile(rb"\x01+")


def _threshold_table(level):
    return bytes(1 if value > level else 0 for value in range(256))


_ABOVE_BLACK = _threshold_table(BLACK_LEVEL)
_ABOVE_DARK = _threshold_table(DARK)
_ABOVE_INK = _threshold_table(INK)


def _mask(rgb, table):
    """One byte per pixel, 1 where any of R, G, B is over the table's
    level: each channel thresholded by translate, then ORed as big
    integers (both in C)."""
    count = len(rgb) // 3
    combined = 0
    for channel in range(3):
        combined |= int.from_bytes(rgb[channel::3].translate(table), "little")
    return combined.to_bytes(count, "little")


class Measures:
    """What classify() looked at, for the docstring's rule and for logs."""

    def __init__(self, width, height):
        self.width, self.height = width, height
        self.lit_fraction = 0.0
        self.runs = 0
        self.components = 0
        self.glyphs = 0
        self.on_baselines = 0
        self.ink_box = None  # (left, top, right, bottom) of every component
        self.notice = False

    def __str__(self):
        return (f"{self.width}x{self.height} lit {self.lit_fraction:.4f} runs {self.runs} "
                f"components {self.components} glyph-like {self.glyphs} on baselines {self.on_baselines}"
                + (" (QEMU's notice)" if self.notice else ""))


def classify(width, height, rgb):
    """Returns (class, Measures) for packed RGB rows (images.read_image)."""
    rgb = bytes(rgb)
    if len(rgb) != width * height * 3:
        raise ValueError(f"{len(rgb)} bytes for {width}x{height} RGB")
    measures = Measures(width, height)
    pixels = width * height
    lit = _mask(rgb, _ABOVE_DARK)
    lit_count = pixels - lit.count(0)
    measures.lit_fraction = lit_count / pixels if pixels else 0.0
    if measures.lit_fraction <= MAX_LIT_FRACTION and lit_count >= MIN_GLYPHS * GLYPH_MIN_PIXELS:
        _glyphs(width, height, lit, _mask(rgb, _ABOVE_INK), measures)
        if measures.on_baselines >= MIN_GLYPHS:
            if not _qemu_notice(width, height, measures):
                return TEXT, measures
            measures.notice = True
            return BLACK, measures
    if measures.lit_fraction <= BLACK_LIT_FRACTION:
        glowing = pixels - _mask(rgb, _ABOVE_BLACK).count(0)
        if glowing <= BLACK_LIT_FRACTION * pixels:
            return BLACK, measures
    return SCENE, measures


def _glyphs(width, height, lit, ink, measures):
    """Counts the glyph-like components of the ink mask, and those on
    shared baselines, into measures. Components are unions of runs (one
    row's consecutive ink pixels) that touch a run of the row above,
    diagonals included."""
    parent = []  # union-find over component ids

    def find(node):
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    # Per component id (valid at its root): bounding box, pixel count,
    # edge pixels looked at, edge pixels dark.
    left, right, top, bottom, count, edges, dark_edges = [], [], [], [], [], [], []
    previous = []  # (start, end, id) of the row above, end exclusive
    runs = 0
    for y in range(height):
        offset = y * width
        row = ink[offset : offset + width]
        if 1 not in row:
            previous = []
            continue
        current = []
        above = 0
        for match in _RUN.finditer(row):
            start, end = match.span()
            runs += 1
            # The pixels just outside the run, where there are any: dark
            # for a sharp glyph, half-lit for an anti-aliased edge.
            looked = seen_dark = 0
            if start > 0:
                looked += 1
                seen_dark += lit[offset + start - 1] == 0
            if end < width:
                looked += 1
                seen_dark += lit[offset + end] == 0
            node = len(parent)
            parent.append(node)
            left.append(start); right.append(end - 1); top.append(y); bottom.append(y)
            count.append(end - start); edges.append(looked); dark_edges.append(seen_dark)
            # Runs above that touch [start - 1, end] (8-connected).
            while above < len(previous) and previous[above][1] < start:
                above += 1
            scan = above
            while scan < len(previous) and previous[scan][0] <= end:
                a, b = find(previous[scan][2]), find(node)
                if a != b:
                    parent[b] = a
                    left[a] = min(left[a], left[b]); right[a] = max(right[a], right[b])
                    top[a] = min(top[a], top[b]); bottom[a] = max(bottom[a], bottom[b])
                    count[a] += count[b]; edges[a] += edges[b]; dark_edges[a] += dark_edges[b]
                scan += 1
            current.append((start, end, node))
        previous = current
        if runs > MAX_RUNS:
            break
    measures.runs = runs
    if runs > MAX_RUNS:
        return
    roots = [node for node in range(len(parent)) if parent[node] == node]
    measures.components = len(roots)
    if roots:
        measures.ink_box = (min(left[node] for node in roots), min(top[node] for node in roots),
                            max(right[node] for node in roots), max(bottom[node] for node in roots))
    glyph_bottoms = []
    for node in roots:
        box_width = right[node] - left[node] + 1
        box_height = bottom[node] - top[node] + 1
        if not (GLYPH_MIN_HEIGHT <= box_height <= GLYPH_MAX_HEIGHT and box_width <= GLYPH_MAX_WIDTH):
            continue
        if count[node] < GLYPH_MIN_PIXELS or count[node] > GLYPH_MAX_FILL * box_width * box_height:
            continue
        if edges[node] == 0 or dark_edges[node] < SHARP_FRACTION * edges[node]:
            continue
        glyph_bottoms.append(bottom[node])
    measures.glyphs = len(glyph_bottoms)
    per_row = Counter(glyph_bottoms)
    measures.on_baselines = sum(
        1 for row in glyph_bottoms
        if per_row[row - 1] + per_row[row] + per_row[row + 1] - 1 >= BASELINE_PEERS)


def _qemu_notice(width, height, measures):
    """One line of ink at the screen's centre: QEMU's placeholder."""
    if measures.ink_box is None:
        return False
    left, top, right, bottom = measures.ink_box
    return (bottom - top + 1 <= NOTICE_MAX_HEIGHT
            and abs((left + right + 1) / 2 - width / 2) <= NOTICE_SLACK
            and abs((top + bottom + 1) / 2 - height / 2) <= NOTICE_SLACK)


def classify_file(path):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
    import images
    width, height, rgb = images.read_image(path)
    return classify(width, height, rgb)


def main(paths):
    if not paths:
        print("usage: frames.py IMAGE...", file=sys.stderr)
        return 2
    for path in paths:
        kind, measures = classify_file(path)
        print(f"{path}: {kind} ({measures})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
