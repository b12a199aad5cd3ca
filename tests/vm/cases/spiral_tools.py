#!/usr/bin/env python3
"""Tools for 50-spiral-touch (stdlib only).

Guest side:
  spiral_tools.py finger NAME X0 X1 Y0 Y1 WIDTH HEIGHT PATH.json
      A uinput protocol B touchscreen (INPUT_PROP_DIRECT, 10 slots, made by
      touch_tools.py's raw ioctls) named NAME with ABS_MT_POSITION_X X0..X1
      and Y Y0..Y1, on a panel of WIDTH x HEIGHT pixels (rotation 0), and
      the spiral's path in screen pixels (`chakractl --json spiral path`).
      Prints "created /dev/input/eventN", then reads commands from stdin,
      one a line, and prints "done LINE" after each:
        down X Y        finger down (slot 0) at screen pixel (X, Y)
        move X Y        the finger to (X, Y)
        up              the finger lifts
        trace F [STEP MS]
                        from the path point nearest the finger, along the
                        path to F of its length (0..1), a move every MS
                        milliseconds (default 40), STEP px apart (default 5)
        trace-for SECONDS [SPEED MS]
                        from the path point nearest the finger, along the
                        path at SPEED px/s (default 40) for SECONDS, a move
                        every MS milliseconds (default 40)
        wander X Y SECONDS [RADIUS MS]
                        the finger (down) circles (X, Y) at RADIUS px
                        (default 12) for SECONDS, a move every MS
                        milliseconds (default 40): a finger that stays on
                        the glass and keeps moving
        pause SECONDS   nothing for SECONDS (the finger stays as it is): for
                        commands queued together, timed by this process
        destroy         UI_DEV_DESTROY with the finger wherever it is
      Before "done LINE" it prints "at EPOCH-SECONDS: LINE", the wall-clock
      time the command's last events were written (`date +%s.%N`'s clock).
      Screen pixels become device units by inverting TouchMapping exactly:
      x = (v - X0 + 1/2) / (X1 - X0 + 1) * WIDTH, so
      v = round(x * (X1 - X0 + 1) / WIDTH - 1/2) + X0 (clamped to the range).
  spiral_tools.py report JSON-FILE FIELD...
      prints FIELD (dotted: head.x) of a chakractl --json reply's result
      ("result." is implied), space-separated; "-" for a missing field.
  spiral_tools.py states EVENTS-LOG
      the spiral_state events of a `chakractl --json events` log (lines
      "EPOCH-SECONDS JSON"), as "from>to from>to ..."

Host side:
  spiral_tools.py check-hold SCREEN.png REFERENCE.png REPORT.json HOLD UP PAUSE DOWN
      The paused hold's screendump against the spiral's colours and the
      offline render of the same state (see 50-spiral-touch.sh); prints
      ok:/FAIL: lines, exit 1 if any failed.
  spiral_tools.py reference-hold-elapsed REMAINING HOLD UP PAUSE DOWN
      the --hold-elapsed that gives `chakrad render` (the default 18 s
      cycle: 6 up, 4 pause, 8 down) the same hold phase and fraction as the
      daemon's configured cycle after HOLD - REMAINING seconds.
"""

import json
import math
import os
import sys
import time

sys.dont_write_bytecode = True  # the guest sees the repository read-only
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

# ---------------------------------------------------------------- guest side


class Path:
    """The spiral's polyline and its cumulative lengths."""

    def __init__(self, points):
        self.points = [(float(x), float(y)) for x, y in points]
        self.lengths = [0.0]
        for (ax, ay), (bx, by) in zip(self.points, self.points[1:]):
            self.lengths.append(self.lengths[-1] + math.hypot(bx - ax, by - ay))

    @property
    def total(self):
        return self.lengths[-1]

    def point(self, length):
        length = min(max(length, 0.0), self.total)
        low, high = 0, len(self.lengths) - 1
        while high - low > 1:  # the segment holding `length`
            middle = (low + high) // 2
            if self.lengths[middle] <= length:
                low = middle
            else:
                high = middle
        span = self.lengths[high] - self.lengths[low]
        f = (length - self.lengths[low]) / span if span > 0 else 0.0
        (ax, ay), (bx, by) = self.points[low], self.points[high]
        return ax + (bx - ax) * f, ay + (by - ay) * f

    def nearest(self, x, y):
        """Path length of the point nearest (x, y), over every segment."""
        best, best_length = math.inf, 0.0
        for i, ((ax, ay), (bx, by)) in enumerate(zip(self.points, self.points[1:])):
            dx, dy = bx - ax, by - ay
            span = dx * dx + dy * dy
            f = 0.0 if span == 0 else min(max(((x - ax) * dx + (y - ay) * dy) / span, 0.0), 1.0)
            d = math.hypot(ax + dx * f - x, ay + dy * f - y)
            if d < best:
                best, best_length = d, self.lengths[i] + f * (self.lengths[i + 1] - self.lengths[i])
        return best_length


def finger(name, x0, x1, y0, y1, width, height, path_file):
    import touch_tools as tt

    with open(path_file) as file:
        path = Path(json.load(file)["result"]["points"])
    kind = "spiral-" + name
    tt.KINDS[kind] = {"direct": True, "x": (x0, x1), "y": (y0, y1)}
    fd, node = tt.create(kind, name)
    tt.say(f"created {node}")
    tt.say(f"path: {len(path.points)} points, {path.total:.1f} px")

    def units(x, y):
        vx = round(x * (x1 - x0 + 1) / width - 0.5) + x0
        vy = round(y * (y1 - y0 + 1) / height - 0.5) + y0
        return min(max(vx, x0), x1), min(max(vy, y0), y1)

    state = {"at": None, "tracking": 0}

    def down(x, y):
        state["tracking"] += 1
        vx, vy = units(x, y)
        tt.command(fd, kind, ["down", "0", str(state["tracking"]), str(vx), str(vy)])
        state["at"] = (x, y)

    def move(x, y):
        vx, vy = units(x, y)
        tt.command(fd, kind, ["move", "0", str(vx), str(vy)])
        state["at"] = (x, y)

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        verb, args = words[0], [float(w) for w in words[1:]]
        if verb == "down":
            down(*args)
        elif verb == "move":
            move(*args)
        elif verb == "up":
            tt.command(fd, kind, ["up", "0"])
            state["at"] = None
        elif verb == "trace":
            target = args[0] * path.total
            step = args[1] if len(args) > 1 else 5.0
            pause = (args[2] if len(args) > 2 else 40.0) / 1000
            start = path.nearest(*state["at"])
            length, moves = start, 0
            while length < target:
                length = min(length + step, target)
                time.sleep(pause)
                move(*path.point(length))
                moves += 1
            tt.say(f"traced {start:.1f} -> {length:.1f} px of {path.total:.1f} ({moves} moves)")
        elif verb == "trace-for":
            seconds = args[0]
            speed = args[1] if len(args) > 1 else 40.0
            pause = (args[2] if len(args) > 2 else 40.0) / 1000
            start = path.nearest(*state["at"])
            began, moves = time.monotonic(), 0
            while (elapsed := time.monotonic() - began) < seconds:
                time.sleep(pause)
                move(*path.point(start + speed * min(elapsed + pause, seconds)))
                moves += 1
            length = path.nearest(*state["at"])
            tt.say(f"traced {start:.1f} -> {length:.1f} px of {path.total:.1f} in {seconds:g} s ({moves} moves)")
        elif verb == "wander":
            cx, cy, seconds = args[:3]
            radius = args[3] if len(args) > 3 else 12.0
            pause = (args[4] if len(args) > 4 else 40.0) / 1000
            began, moves = time.monotonic(), 0
            while time.monotonic() - began < seconds:
                time.sleep(pause)
                angle = moves * 0.3
                move(cx + radius * math.cos(angle), cy + radius * math.sin(angle))
                moves += 1
            tt.say(f"wandered around ({cx:g}, {cy:g}) for {seconds:g} s ({moves} moves)")
        elif verb == "pause":
            time.sleep(args[0])
        elif verb == "destroy":
            tt.command(fd, kind, ["destroy"])
        else:
            raise SystemExit(f"unknown command {line!r}")
        tt.say(f"at {time.time():.3f}: {line.strip()}")
        tt.say("done " + line.strip())
    try:
        tt.command(fd, kind, ["destroy"])
    except OSError:
        pass


def report(path, *fields):
    try:
        with open(path) as file:
            value = json.load(file)
    except (OSError, ValueError):
        print(" ".join("-" for _ in fields))
        return
    out = []
    for field in fields:
        v = value.get("result", value)
        for key in field.split("."):
            v = v.get(key) if isinstance(v, dict) else None
        out.append("-" if v is None else json.dumps(v) if isinstance(v, (dict, list, bool)) else str(v))
    print(" ".join(out))


def states(path):
    seen = []
    with open(path) as file:
        for line in file:
            _, _, text = line.partition(" ")
            try:
                event = json.loads(text)
            except ValueError:
                continue
            if event.get("event") == "spiral_state":
                seen.append(f"{event['from']}>{event['to']}")
    print(" ".join(seen))


# ----------------------------------------------------------------- host side

# docs/spiral-params.json and ChakraConfig.Spiral's defaults (the geometry
# is not configured by the test, so the daemon and `chakrad render` agree).
PARAMS = os.path.join(HERE, "..", "..", "..", "docs", "spiral-params.json")
START_RADIUS, SPACING, ROTATIONS, LINE_WIDTH, HEAD_SIZE = 20.0, 36.0, 4.0, 14.0, 28.0


def colour(text):
    return tuple(int(text[i : i + 2], 16) for i in (1, 3, 5))


def ease_in_out(f):
    """CSS ease-in-out, cubic-bezier(0.42, 0, 0.58, 1): y at x = f."""
    def bezier(t, p1, p2):
        return 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t * t * p2 + t ** 3
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        if bezier(middle, 0.42, 0.58) < f:
            low = middle
        else:
            high = middle
    return bezier((low + high) / 2, 0.0, 1.0)


def hold_phase(elapsed, up, pause, down):
    """(phase, fraction) as SpiralSession.holdPhase, for a breathing
    pattern of in (up), hold-in (pause) and out (down)."""
    cycle = up + pause + down
    t = math.fmod(elapsed, cycle) if cycle > 0 else 0
    if t < up:
        return "breathe_in", t / up
    if t < up + pause:
        return "hold_breath", (t - up) / pause if pause > 0 else 1
    return "breathe_out", min((t - up - pause) / down, 1)


def pulse(phase, fraction):
    eased = ease_in_out(fraction)
    return {"breathe_in": 1 + 2 * eased, "hold_breath": 3.0, "breathe_out": 3 - 2 * eased}[phase]


def reference_elapsed(phase, fraction):
    """The default cycle's (6, 4, 8 s) hold time with that phase and
    fraction, one cycle in (18 s), so that the texts have faded in."""
    return 18 + {"breathe_in": 6 * fraction, "hold_breath": 6 + 4 * fraction, "breathe_out": 10 + 8 * fraction}[phase]


def layout(width, height, params):
    """SpiralLayout for the stacked and fitted modes: (scale, centre y,
    guidance y, hint y, bar y), as docs/spiral-params.json "layout" says."""
    lay, text = params["layout"], params["text"]
    u = min(width, height) / 390
    outer = START_RADIUS + SPACING * ROTATIONS + LINE_WIDTH / 2
    half = outer + lay["counter_offset_px"] + text["counter_size_px"] / 2 + 5
    column = (width / 2 - outer * u) / u
    if height >= 2 * half * u:
        k = 1.0
    elif column >= lay["side_min_column_px"]:
        raise SystemExit("check-hold: the side layout is not handled here; use a screen without room beside the spiral")
    else:
        k = height / (2 * half * u)
    s = u * k
    cy = height / 2
    return (s, cy, cy - (outer + lay["guidance_offset_px"]) * s, cy + (outer + lay["hint_offset_px"]) * s,
            cy + (outer + lay["bar_offset_px"]) * s)


def crop(image, x0, y0, x1, y1):
    width, height, rgb = image
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
    rows = [rgb[(y * width + x0) * 3 : (y * width + x1) * 3] for y in range(y0, y1)]
    return x1 - x0, y1 - y0, b"".join(rows)


def compare(a, b, tolerance):
    """(bad pixels, pixels, max delta) of two same-size crops."""
    _, _, pa = a
    _, _, pb = b
    bad, largest = 0, 0
    for i in range(0, len(pa), 3):
        delta = max(abs(pa[i] - pb[i]), abs(pa[i + 1] - pb[i + 1]), abs(pa[i + 2] - pb[i + 2]))
        largest = max(largest, delta)
        bad += delta > tolerance
    return bad, len(pa) // 3, largest


def near(rgb, target, tolerance):
    return all(abs(a - b) <= tolerance for a, b in zip(rgb, target))


def count_near(region, target, tolerance):
    _, _, pixels = region
    return sum(1 for i in range(0, len(pixels), 3) if near(pixels[i : i + 3], target, tolerance))


def check_hold(screen_path, reference_path, report_path, hold, up, pause, down):
    from images import read_image

    failures = []

    def check(condition, message):
        print(("ok: " if condition else "FAIL: ") + message)
        if not condition:
            failures.append(message)

    with open(PARAMS) as file:
        params = json.load(file)
    screen, reference = read_image(screen_path), read_image(reference_path)
    with open(report_path) as file:
        result = json.load(file)["result"]
    width, height, rgb = screen
    check((width, height) == reference[:2], f"screendump {width}x{height}, render {reference[0]}x{reference[1]}")
    if (width, height) != reference[:2]:
        return 1
    s, _, guidance_y, hint_y, bar_y = layout(width, height, params)
    elapsed = float(hold) - result["hold_remaining"]
    phase, fraction = hold_phase(elapsed, float(up), float(pause), float(down))
    scale = pulse(phase, fraction)
    radius = HEAD_SIZE / 2 * s * scale
    hx, hy = result["head"]["x"], result["head"]["y"]
    print(f"hold: {elapsed:.2f} s counted, {phase} at {fraction:.2f}, orb scale {scale:.2f}, core radius {radius:.1f} px "
          f"at ({hx:.1f}, {hy:.1f}); layout scale {s:.4f}: guidance at y {guidance_y:.1f}, hint {hint_y:.1f}, bar {bar_y:.1f}")

    def pixel(x, y):
        i = (int(y) * width + int(x)) * 3
        return tuple(rgb[i : i + 3])

    # (a) The orb where the status says: the core is the progress
    # gradient's colour at the head (colour progress 0.5 in Hold: the
    # "0.5" stop, #ee8c7c), under a warm-white highlight (#fffaf4 at 0.85)
    # of half its radius, blurred by 0.35 of that. At 0.72 of the radius
    # the highlight has faded to a few levels: eight points on that circle
    # must be the core colour within 24 levels. A point 5 px off the head
    # puts some of them outside the core, on the glow or the track.
    core = colour(params["progress"]["stops"][1][1])
    ring = [(hx + 0.72 * radius * math.cos(a * math.pi / 4), hy + 0.72 * radius * math.sin(a * math.pi / 4)) for a in range(8)]
    got = [pixel(x, y) for x, y in ring]
    check(all(near(p, core, 24) for p in got),
          f"the orb's core ({'#%02x%02x%02x' % core}) on a circle of {0.72 * radius:.1f} px around the reported head: {got}")
    # The background elsewhere: the top-left corner is the gradient's first stop.
    background = colour(params["background"]["stops"][0][1])
    check(near(pixel(4, 4), background, 6) and not near(pixel(4, 4), core, 24),
          f"the background elsewhere is not the orb: {pixel(4, 4)} at (4, 4) (gradient start {background})")

    # (b) The texts, where the layout puts them, are what `chakrad render`
    # draws in the same hold phase (the text rows are static): the guidance
    # (24 design px, one line) and the hint (16 px) bands. Each holds text
    # pixels (the text colours within 40 levels), so the comparison is not
    # of empty background.
    text = params["text"]
    for what, y, size, tint in (("guidance", guidance_y, text["guidance_size_px"], text["color"]),
                                ("hint", hint_y, text["hint_size_px"], text["hint_color"])):
        half = math.ceil(size * s * text["line_height"] / 2) + 4
        box = (0, int(y) - half, width, int(y) + half + 1)
        a, b = crop(screen, *box), crop(reference, *box)
        bad, pixels, largest = compare(a, b, 2)
        inked = count_near(a, colour(tint), 40)
        check(bad <= pixels * 0.01 and inked >= 40,
              f"{what} text (rows {box[1]}..{box[3] - 1}) = the render of {phase}: {bad} of {pixels} pixels over 2 levels "
              f"(max {largest}), {inked} text-coloured pixels")

    # The orb and its glow (1.6 x the radius, blurred 10 design px), in a
    # box around the head: the render's at the same pulse. The pulse comes
    # from hold_remaining, rounded to 0.01 s: up to half a pixel of radius,
    # so the edge may differ by a few levels (tolerance 8).
    reach = int(1.6 * radius + 3 * 10 * s) + 2
    box = (int(hx) - reach, int(hy) - reach, int(hx) + reach + 1, int(hy) + reach + 1)
    bad, pixels, largest = compare(crop(screen, *box), crop(reference, *box), 8)
    check(bad <= pixels * 0.01, f"the orb box {box} = the render: {bad} of {pixels} pixels over 8 levels (max {largest})")

    # Everything above the bar (the bar's fill, shimmer and the countdown
    # depend on the hold's length, which the render does not share).
    top = int(bar_y - params["hold_bar"]["height_px"] * s / 2) - 4
    bad, pixels, largest = compare(crop(screen, 0, 0, width, top), crop(reference, 0, 0, width, top), 2)
    check(bad <= pixels * 0.01, f"the frame above the bar (rows 0..{top - 1}) = the render: {bad} of {pixels} pixels over 2 levels (max {largest})")
    return 1 if failures else 0


def reference_hold_elapsed(remaining, hold, up, pause, down):
    phase, fraction = hold_phase(float(hold) - float(remaining), float(up), float(pause), float(down))
    print("%.4f" % reference_elapsed(phase, fraction))


def main(argv):
    commands = {
        "finger": (lambda n, *a: finger(n, *map(int, a[:6]), a[6]), 8),
        "report": (report, None),
        "states": (states, 1),
        "check-hold": (check_hold, 7),
        "reference-hold-elapsed": (reference_hold_elapsed, 5),
    }
    if len(argv) < 2 or argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    function, count = commands[argv[1]]
    if count is not None and len(argv) - 2 != count:
        print(__doc__, file=sys.stderr)
        return 2
    return function(*argv[2:]) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
