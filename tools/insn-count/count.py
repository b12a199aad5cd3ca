#!/usr/bin/env python3
"""Instructions a frame on aarch64 and on x86-64, counted the same way.

    count.py --amd64 CHAKRAD --arm64 CHAKRAD --sysroot ROOT [--size WxH ...] [--scene NAME ...]

Each binary runs `chakrad bench --threads 1` under qemu-user (Debian's
dynamic qemu-aarch64 and qemu-x86_64, which load TCG plugins) with
insn-count.so, which counts the guest instructions executed. As in
docs/bench.md's callgrind figures, a frame's cost is the count of
`--frames 40` minus that of `--frames 10`, divided by 30: everything but
the frames (start, scene construction) is the same in both runs and falls
out. The x86-64 column checks the method against callgrind's figures.

Prints a Markdown table: M instructions a frame for each scene and size,
aarch64 and x86-64, and their ratio.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = {
    "heart": ["--scene", "heart"],
    "drift": ["--scene", "drift"],
    "calm": ["--scene", "calm"],
    "spiral (hold)": ["--scene", "spiral", "--spiral-state", "hold"],
}


def plugin(build):
    """insn-count.so, built when missing or older than its source."""
    source = os.path.join(HERE, "insn-count.c")
    library = os.path.join(build, "insn-count.so")
    if not os.path.exists(library) or os.path.getmtime(library) < os.path.getmtime(source):
        os.makedirs(build, exist_ok=True)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o", library, source], check=True)
    return library


def count(qemu, library, binary, arguments, root=None):
    command = [qemu] + (["-L", root] if root else []) + ["-plugin", library, "-d", "plugin", binary, "bench"] + arguments
    result = subprocess.run(command, capture_output=True, text=True)
    found = re.findall(r"insn-count: (\d+)", result.stdout + result.stderr)
    if result.returncode != 0 or not found:
        raise RuntimeError(f"{' '.join(command)}: exit {result.returncode}\n{result.stderr[-2000:]}")
    return int(found[-1])


def per_frame(qemu, library, binary, arguments, root=None):
    fixed = ["--threads", "1", "--format", "XRGB8888"]
    many = count(qemu, library, binary, arguments + fixed + ["--frames", "40"], root)
    few = count(qemu, library, binary, arguments + fixed + ["--frames", "10"], root)
    return (many - few) / 30


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--amd64", required=True, help="the x86-64 chakrad")
    parser.add_argument("--arm64", required=True, help="the aarch64 chakrad")
    parser.add_argument("--sysroot", required=True, help="the arm64 root its libraries are in (qemu -L)")
    parser.add_argument("--size", action="append", help="sizes (default 800x480 and 1920x1080)")
    parser.add_argument("--scene", action="append", choices=list(SCENES), help="scenes (default all)")
    parser.add_argument("--build", default=os.path.join(HERE, "..", "..", ".build-insn"), help="where the plugin is built")
    options = parser.parse_args()

    for qemu in ["qemu-aarch64", "qemu-x86_64"]:
        if not shutil.which(qemu):
            sys.exit(f"{qemu} is missing (Debian package qemu-user: the static build cannot load plugins)")
    library = plugin(os.path.abspath(options.build))
    sizes = options.size or ["800x480", "1920x1080"]
    scenes = options.scene or list(SCENES)
    print("| scene | size | aarch64 M | x86-64 M | aarch64 / x86-64 |")
    print("|---|---|---:|---:|---:|")
    for scene in scenes:
        for size in sizes:
            arguments = SCENES[scene] + ["--size", size]
            arm = per_frame("qemu-aarch64", library, os.path.abspath(options.arm64), arguments, options.sysroot)
            x86 = per_frame("qemu-x86_64", library, os.path.abspath(options.amd64), arguments)
            print(f"| {scene} | {size} | {arm / 1e6:.2f} | {x86 / 1e6:.2f} | {arm / x86:.2f} |", flush=True)


if __name__ == "__main__":
    main()
