#!/usr/bin/env python3
"""The same pixels on arm64 as on amd64: every scene, its forms and the
spiral's states, at three screen sizes and several times, rendered by the
amd64 chakrad and by the arm64 one (under qemu-user), compared byte for byte.

    same-pixels.py REFERENCE_CHAKRAD ARM64_CHAKRAD --runner "qemu-aarch64-static -L ROOT" [--out DIR]

Frames are written as PPM (`chakrad render -o x.ppm`: the RGB bytes, no
encoder in between) in XRGB8888, the format DRM buffers get, so the final
pass's SIMD packing (CLanes: SSE2 on amd64, NEON on arm64) and its streaming
stores run as on a screen; a few frames in RGB565 and BGR888 cover the other
packings. The two sides must agree exactly: the renderer's arithmetic is
integer or IEEE float without fused operations, so nothing may differ. A
frame that differs fails the test with its largest difference and the count
of differing bytes; its two PPMs stay in --out.

Exit status 0 when every frame matches, 1 otherwise.
"""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

SIZES = ["800x480", "1280x720", "1920x1080"]
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def frames():
    """(name, render arguments) for every frame of one size."""
    out = []
    for scene in ["heart", "drift", "calm"]:
        for t in ["0", "4.25", "12.5"]:
            out.append((f"{scene}-t{t}", ["--scene", scene, "--time", t]))
        out.append((f"{scene}-reduce-motion", ["--scene", scene, "--time", "12.5", "--reduce-motion"]))
        out.append((f"{scene}-low-power", ["--scene", scene, "--time", "12.5", "--low-power"]))
    spiral = ["--scene", "spiral", "--font", FONT, "--lang-dir", "etc/chakra/lang"]
    states = [
        ("idle", ["--spiral-state", "idle", "--time", "1"]),
        ("inhale", ["--spiral-state", "inhale", "--progress", "0.3", "--time", "0.5"]),
        ("inhale-lifted", ["--spiral-state", "inhale", "--progress", "0.3", "--time", "0.5", "--lifted"]),
        ("hold", ["--spiral-state", "hold", "--hold-elapsed", "20", "--time", "2"]),
        ("exhale", ["--spiral-state", "exhale", "--progress", "0.8", "--time", "0.5"]),
        ("completed", ["--spiral-state", "completed", "--time", "1"]),
    ]
    for name, arguments in states:
        out.append((f"spiral-{name}", spiral + arguments))
    out.append(("spiral-inhale-reduce-motion", spiral + states[1][1] + ["--reduce-motion"]))
    out.append(("spiral-hold-low-power", spiral + states[3][1] + ["--low-power"]))
    return out


def jobs():
    """Every frame at every size: (label, arguments)."""
    out = []
    for size in SIZES:
        for name, arguments in frames():
            out.append((f"{size}-{name}-XRGB8888", arguments + ["--size", size, "--format", "XRGB8888"]))
        for format in ["RGB565", "BGR888"]:
            out.append((f"{size}-heart-t12.5-{format}", ["--scene", "heart", "--time", "12.5", "--size", size, "--format", format]))
    return out


def render(command, arguments, path):
    started = time.monotonic()
    result = subprocess.run(command + ["render"] + arguments + ["-o", path], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} render {' '.join(arguments)}: exit {result.returncode}: {result.stderr.strip()}")
    return time.monotonic() - started


def compare(a, b):
    """None when equal, else (largest byte difference, differing bytes)."""
    with open(a, "rb") as fa, open(b, "rb") as fb:
        x, y = fa.read(), fb.read()
    if x == y:
        return None
    if len(x) != len(y):
        return (None, abs(len(x) - len(y)))
    differing = [abs(p - q) for p, q in zip(x, y) if p != q]
    return (max(differing), len(differing))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reference", help="the amd64 chakrad")
    parser.add_argument("arm64", help="the arm64 chakrad")
    parser.add_argument("--runner", default="", help="what runs the arm64 binary, e.g. 'qemu-aarch64-static -L ROOT'")
    parser.add_argument("--out", help="where the frames go (default: a temporary directory, removed when all match)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", help="only the frames whose label contains this")
    options = parser.parse_args()

    out = options.out or tempfile.mkdtemp(prefix="chakra-same-pixels-")
    os.makedirs(out, exist_ok=True)
    reference = [os.path.abspath(options.reference)]
    arm64 = shlex.split(options.runner) + [os.path.abspath(options.arm64)]
    work = [job for job in jobs() if not options.only or options.only in job[0]]
    started = time.monotonic()
    seconds = {"amd64": 0.0, "arm64": 0.0}
    failures = []

    def one(job):
        label, arguments = job
        a, b = os.path.join(out, label + "-amd64.ppm"), os.path.join(out, label + "-arm64.ppm")
        spent = (render(reference, arguments, a), render(arm64, arguments, b))
        difference = compare(a, b)
        if difference is None:
            os.unlink(a)
            os.unlink(b)
        return label, spent, difference

    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        for label, spent, difference in pool.map(one, work):
            seconds["amd64"] += spent[0]
            seconds["arm64"] += spent[1]
            if difference is None:
                print(f"same: {label}")
            else:
                largest, count = difference
                print(f"DIFFERENT: {label}: largest difference {largest}, {count} bytes differ")
                failures.append(label)
    print(f"figure: frames={len(work)} wall={time.monotonic() - started:.1f}s "
          f"render_amd64={seconds['amd64']:.1f}s render_arm64={seconds['arm64']:.1f}s")
    if failures:
        print(f"{len(failures)} of {len(work)} frames differ; their PPMs are in {out}")
        return 1
    if not options.out:
        os.rmdir(out)
    print(f"all {len(work)} frames the same on arm64 as on amd64")
    return 0


if __name__ == "__main__":
    sys.exit(main())
