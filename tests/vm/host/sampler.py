"""Screendumps at 10 Hz or more through a window, each classified on the
host as scene, black or text (lib/frames.py), for issue 30's proof that a
kiosk never shows the console or a black screen while chakrad restarts,
upgrades, boots or shuts down.

The QMP watcher (qmp-watcher.py) owns the QMP connection and calls
`due()` and `take()` from its loop; a window begins at the guest's
request (`{"sample": "start", "name": NAME}`) or, for a boot, when the
watcher connects (`--sample-boot NAME`: QEMU has just started, before the
firmware and the kernel), and ends at the guest's
`{"sample": "stop"}` or when QEMU exits (a reboot or power-off window).

Each frame is dumped as PPM (no encoding in QEMU: a few milliseconds) into
a scratch directory on tmpfs, read and deleted at once; a classifier
thread does the rest, so a slow frame delays no dump. Identical frames
(a still picture, the console, black) are classified once, by their
SHA-256. Per window NAME, in the results directory:

    samples.txt           one line per window: its counts and figures
                          (the summary below; the reply to "stop" too)
    samples/NAME.timeline runs of frames: start and end (seconds since the
                          window began), class, frames, size
    samples/NAME-first-text-WxH.png, samples/NAME-first-black-WxH.png
                          the first frame of that class at each size, for
                          diagnosis

The summary's fields: frames, scene, black, text (counts); seconds, hz
(frames per second), max_gap_ms (the longest time between two dumps: a
picture shown for less than that may have been missed); and, counted only
from the first frame at the size the window ends at (the panel's mode;
before it the firmware's or QEMU's own screen at another size):
final_size, handover_s (seconds to that first frame), scene_after,
black_after, text_after, first_scene_s (seconds to the first scene frame
at that size), black_after_scene (black frames from that scene frame on:
a boot's picture, Plymouth's splash or chakrad's first frame, gone to
black before the window's end).

A boot window (NAME boot...) keeps its first scene frame at each size too
(NAME-first-scene-WxH.png): where Plymouth runs, the splash chakrad takes
over from.
"""

import hashlib
import os
import queue
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import frames  # noqa: E402
import images  # noqa: E402

# 12.5 Hz asked, so that a host slowed by the other lane still gives 10.
INTERVAL = 0.08


def scratch_directory():
    """tmpfs when there is one: a second of frames is 30 MB."""
    for candidate in ("/dev/shm", os.environ.get("XDG_RUNTIME_DIR"), None):
        if candidate is None or os.path.isdir(candidate):
            try:
                return tempfile.mkdtemp(prefix="chakra-samples.", dir=candidate)
            except OSError:
                continue
    return tempfile.mkdtemp(prefix="chakra-samples.")


class Window:
    def __init__(self, name, results):
        self.name = name
        self.results = results
        self.started = time.monotonic()
        self.taken = []  # (seconds since start) of each dump
        self.classified = []  # (seconds, class, size) in order
        self.kept = set()
        self.errors = 0


class Sampler:
    def __init__(self, qmp, results, interval=INTERVAL):
        self.qmp = qmp
        self.results = results
        self.interval = interval
        self.window = None
        self.next_due = 0.0
        self.scratch = None
        self.sequence = 0
        self.cache = {}  # sha256 -> class
        self.work = queue.Queue(maxsize=32)  # bounds memory: 32 frames of 4 MB
        self.worker = threading.Thread(target=self.classify_frames, daemon=True)
        self.worker.start()

    # -- the watcher's side ---------------------------------------------

    def start(self, name):
        if not isinstance(name, str) or not frames_name_ok(name):
            return False, f"bad window name {name!r} (letters, digits, . _ -)"
        summary = self.stop() if self.window else None
        if self.scratch is None:
            self.scratch = scratch_directory()
        self.window = Window(name, self.results)
        self.next_due = time.monotonic()
        note = f" (window {summary.split()[0]} ended first)" if summary else ""
        return True, f"sampling {name} every {self.interval * 1000:.0f} ms{note}"

    def due(self):
        """Seconds until the next dump (0: now), or None when not sampling."""
        if self.window is None:
            return None
        return max(0.0, self.next_due - time.monotonic())

    def take(self):
        """One screendump into the scratch directory, read, deleted and
        queued for the classifier."""
        window = self.window
        now = time.monotonic()
        # On time, or as soon as possible after a late one (no catching up
        # with a burst).
        self.next_due = max(self.next_due + self.interval, now)
        self.sequence += 1
        path = os.path.join(self.scratch, f"{self.sequence}.ppm")
        reply = self.qmp.execute({"execute": "screendump", "arguments": {"filename": path}})
        at = time.monotonic() - window.started
        try:
            if "error" in reply:
                raise OSError(reply["error"].get("desc"))
            with open(path, "rb") as file:
                data = file.read()
        except OSError as error:
            window.errors += 1
            log(f"sample {window.name}: screendump failed: {error}")
            return
        finally:
            try:
                os.unlink(path)
            except OSError:
                pass
        window.taken.append(at)
        self.work.put((window, at, data))

    def stop(self):
        """Ends the window: waits for its frames to be classified, writes
        its files and returns the summary line ('' when none is open)."""
        window, self.window = self.window, None
        if window is None:
            return ""
        self.work.join()
        summary = summarize(window)
        with open(os.path.join(self.results, "samples.txt"), "a") as file:
            file.write(summary + "\n")
        write_timeline(window)
        return summary

    def close(self):
        summary = self.stop()
        if self.scratch:
            try:
                os.rmdir(self.scratch)
            except OSError:
                pass
        return summary

    # -- the classifier thread ------------------------------------------

    def classify_frames(self):
        while True:
            window, at, data = self.work.get()
            try:
                self.classify(window, at, data)
            except Exception as error:  # a bad frame must not stop the window
                window.errors += 1
                log(f"sample {window.name}: cannot classify the frame at {at:.2f} s: {error}")
            finally:
                self.work.task_done()

    def classify(self, window, at, data):
        width, height, rgb = images.decode_ppm(data)
        digest = hashlib.sha256(rgb).digest()
        kind = self.cache.get(digest)
        if kind is None:
            kind, _ = frames.classify(width, height, rgb)
            if len(self.cache) > 4096:
                self.cache.clear()
            self.cache[digest] = kind
        window.classified.append((at, kind, f"{width}x{height}"))
        # The first of each class at each size: a boot's firmware text at
        # 720x400 is not the console's after the hand-over.
        size = f"{width}x{height}"
        # In a boot window the first scene frame at each size too (the
        # splash, where Plymouth runs).
        boot = window.name.startswith("boot")
        if (kind != frames.SCENE or boot) and (kind, size) not in window.kept:
            window.kept.add((kind, size))
            directory = os.path.join(window.results, "samples")
            os.makedirs(directory, exist_ok=True)
            images.write_image(os.path.join(directory, f"{window.name}-first-{kind}-{size}.png"), width, height, rgb)


def frames_name_ok(name):
    return bool(name) and name[0].isalnum() and all(c.isalnum() or c in "._-" for c in name)


def summarize(window):
    counts = {kind: 0 for kind in frames.CLASSES}
    for _, kind, _ in window.classified:
        counts[kind] += 1
    taken = window.taken
    seconds = (taken[-1] - taken[0]) if len(taken) > 1 else 0.0
    gaps = [b - a for a, b in zip(taken, taken[1:])]
    fields = [
        window.name,
        f"frames={len(window.classified)}",
        *(f"{kind}={counts[kind]}" for kind in frames.CLASSES),
        f"seconds={seconds:.1f}",
        f"hz={(len(taken) - 1) / seconds if seconds else 0:.1f}",
        f"max_gap_ms={max(gaps) * 1000 if gaps else 0:.0f}",
    ]
    if window.classified:
        final = window.classified[-1][2]
        index = next(i for i, (_, _, size) in enumerate(window.classified) if size == final)
        after = {kind: 0 for kind in frames.CLASSES}
        for _, kind, _ in window.classified[index:]:
            after[kind] += 1
        scene_index = next((i for i in range(index, len(window.classified)) if window.classified[i][1] == frames.SCENE), None)
        first_scene = None if scene_index is None else window.classified[scene_index][0]
        black_after_scene = 0 if scene_index is None else sum(
            1 for _, kind, _ in window.classified[scene_index:] if kind == frames.BLACK)
        fields += [
            f"final_size={final}",
            f"handover_s={window.classified[index][0]:.1f}",
            *(f"{kind}_after={after[kind]}" for kind in frames.CLASSES),
            f"first_scene_s={'-' if first_scene is None else f'{first_scene:.1f}'}",
            f"black_after_scene={black_after_scene}",
        ]
    if window.errors:
        fields.append(f"errors={window.errors}")
    return " ".join(fields)


def write_timeline(window):
    directory = os.path.join(window.results, "samples")
    os.makedirs(directory, exist_ok=True)
    runs = []
    for at, kind, size in window.classified:
        if runs and runs[-1][2] == kind and runs[-1][4] == size:
            runs[-1][1] = at
            runs[-1][3] += 1
        else:
            runs.append([at, at, kind, 1, size])
    with open(os.path.join(directory, f"{window.name}.timeline"), "w") as file:
        file.write("# start_s end_s class frames size\n")
        for start, end, kind, count, size in runs:
            file.write(f"{start:.2f} {end:.2f} {kind} {count} {size}\n")


def log(message):
    print(f"chakra-vm: qmp-watcher: {message}", file=sys.stderr, flush=True)
