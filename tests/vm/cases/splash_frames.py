#!/usr/bin/env python3
"""Host half of 48-splash-takeover: what the screen showed while chakrad
took over from the splash, frame by frame.

    splash_frames.py DIR RUN HEART.png fade|cut
    splash_frames.py --expected-splash OUT.ppm WxH

reads DIR/RUN-splash.ppm (the splash alone, before chakrad) and the
screendumps DIR/RUN-000.ppm, RUN-001.ppm, ... in order, and tells for
each how much of the heart it holds: the share a in [0, 1] that makes
splash·(1 − a) + heart·a nearest to the frame (least squares over every
fifth pixel of every fifth row), and how far the frame is from that mix
(`off`: the sampled channels more than 6 levels from it, in percent). A
frame that is no such mix (black, the console, anything else) has a large
`off`. Writes DIR/RUN-timeline.txt (one line a frame) and PNGs of the
first frame with the heart in it, one half way and the last
(RUN-first-mix.png, RUN-half.png, RUN-last.png), and prints a summary

    RUN: frames=N mixes=N blended=N first_share=A max_off=P rising=yes|no last_share=A

(mixes: frames within 2% of a mix; blended: frames with 0.05 < a < 0.95;
first_share: a of the first frame with any heart in it, a > 0.01), then
ok:/FAIL: lines: every frame a mix, the share rising, and for `fade` the
first frame with heart mostly splash and two frames on the way at least,
for `cut` none on the way.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import images  # noqa: E402

STEP = 5


def samples(path):
    width, height, rgb = images.read_image(path)
    row = width * 3
    values = []
    for y in range(0, height, STEP):
        base = y * row
        for x in range(0, width, STEP):
            i = base + 3 * x
            values.extend(rgb[i:i + 3])
    return (width, height), values


def share(frame, splash, heart):
    """The least-squares a, and the percentage of channels off the mix."""
    num = den = 0
    for f, s, h in zip(frame, splash, heart):
        d = h - s
        num += (f - s) * d
        den += d * d
    a = min(max(num / den, 0.0), 1.0) if den else 0.0
    off = sum(1 for f, s, h in zip(frame, splash, heart) if abs(f - (s + a * (h - s))) > 6)
    return a, 100.0 * off / len(frame)


def expected_splash(path, size):
    """The splash as splash_takeover.py draws it (splash_row): eight bands,
    red rising left to right, green by band, blue 200."""
    width, height = (int(n) for n in size.split("x"))
    bands = [bytes(v for x in range(width) for v in (255 * x // (width - 1), 40 + 24 * band, 200)) for band in range(8)]
    images.write_image(path, width, height, b"".join(bands[8 * y // height] for y in range(height)))


def main():
    if sys.argv[1] == "--expected-splash":
        expected_splash(sys.argv[2], sys.argv[3])
        return 0
    directory, run, heart_path, expect = sys.argv[1:5]
    size, splash = samples(os.path.join(directory, run + "-splash.ppm"))
    heart_size, heart = samples(heart_path)
    if size != heart_size:
        print("the splash is %dx%d, the heart %dx%d" % (size + heart_size))
        return 1
    names = sorted(n for n in os.listdir(directory) if n.startswith(run + "-") and n[len(run) + 1:-4].isdigit() and n.endswith(".ppm"))
    rows = []
    for name in names:
        frame_size, frame = samples(os.path.join(directory, name))
        if frame_size != size:
            rows.append((name, None, 100.0))
            continue
        a, off = share(frame, splash, heart)
        rows.append((name, a, off))
    with open(os.path.join(directory, run + "-timeline.txt"), "w") as f:
        for name, a, off in rows:
            f.write("%s share=%s off=%.2f%%\n" % (name, "-" if a is None else "%.3f" % a, off))
    mixes = [r for r in rows if r[1] is not None and r[2] <= 2.0]
    blended = [r for r in mixes if 0.05 < r[1] < 0.95]
    with_heart = [r for r in rows if r[1] is not None and r[1] > 0.01]
    shares = [r[1] for r in rows if r[1] is not None]
    rising = all(b >= a - 0.02 for a, b in zip(shares, shares[1:]))
    for label, row in (("first-mix", with_heart[0] if with_heart else None),
                       ("half", min(blended, key=lambda r: abs(r[1] - 0.5)) if blended else None),
                       ("last", rows[-1] if rows else None)):
        if row:
            w, h, rgb = images.read_image(os.path.join(directory, row[0]))
            images.write_image(os.path.join(directory, "%s-%s.png" % (run, label)), w, h, rgb)
    max_off = max((r[2] for r in rows), default=100.0)
    first = with_heart[0][1] if with_heart else None
    print("%s: frames=%d mixes=%d blended=%d first_share=%s max_off=%.2f rising=%s last_share=%s" % (
        run, len(rows), len(mixes), len(blended), "-" if first is None else "%.3f" % first, max_off,
        "yes" if rising else "no", "%.3f" % rows[-1][1] if rows and rows[-1][1] is not None else "-"))

    def check(message, ok):
        print(("ok: " if ok else "FAIL: ") + run + ": " + message)

    check("every frame the splash, the heart or a mix of them (at most %.2f%% off a mix: never black, never the console)" % max_off,
          bool(rows) and max_off <= 2.0)
    check("the heart's share only rises", rising)
    if expect == "fade":
        check("the first frame with heart in it is mostly splash (share %s)" % ("-" if first is None else "%.3f" % first), first is not None and first <= 0.5)
        check("%d frames on the way (0.05 < share < 0.95), at least 2" % len(blended), len(blended) >= 2)
    else:
        check("no frame on the way (%d): the fade checks can fail" % len(blended), not blended)
    return 0


sys.exit(main())
