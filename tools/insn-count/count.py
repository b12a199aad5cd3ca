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
aarch64 and x86-64, their ratio, and what the aarch64 count means on a
Raspberry Pi 4's Cortex-A72: the share of one core at --fps (60), at
--ghz (1.5) and an assumed --ipc (instructions a cycle, 1.5; docs/bench.md
says why).

    count.py --arm64 CHAKRAD --sysroot ROOT --budget FILE

counts aarch64 only and fails when a scene costs more than FILE allows
(lines `SCENE SIZE MAX-M-INSTRUCTIONS`, # comments): `make test`'s check
that the arm64 frame does not grow unnoticed.

    count.py --arm64 CHAKRAD --sysroot ROOT --profile [--scene NAME] [--size WxH]
    count.py --amd64 CHAKRAD --profile [--scene NAME] [--size WxH]

where a frame's aarch64 (or x86-64) instructions go: the same two runs with the
plugin's per-block counts, summed per function (the binary's symbols,
demangled by swift-demangle when it is on PATH) and per block, the
difference over 30: each function's and the hottest blocks' instructions
a frame (a block's address, less the load address, is what objdump shows).
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
    "spiral (completed)": ["--scene", "spiral", "--spiral-state", "completed"],
}


def plugin(build):
    """insn-count.so, built when missing or older than its source."""
    source = os.path.join(HERE, "insn-count.c")
    library = os.path.join(build, "insn-count.so")
    if not os.path.exists(library) or os.path.getmtime(library) < os.path.getmtime(source):
        os.makedirs(build, exist_ok=True)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o", library, source], check=True)
    return library


def count(qemu, library, binary, arguments, root=None, profile=None):
    load = library + (f",profile={profile}" if profile else "")
    command = [qemu] + (["-L", root] if root else []) + ["-plugin", load, "-d", "plugin", binary, "bench"] + arguments
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


def blocks(path):
    """{address: (instructions run, symbol)} from the plugin's profile."""
    out = {}
    with open(path) as f:
        for line in f:
            address, insns, runs, symbol = line.split(" ", 3)
            total, _ = out.get(int(address, 16), (0, None))
            out[int(address, 16)] = (total + int(insns) * int(runs), symbol.strip())
    return out


def demangled(names):
    tool = shutil.which("swift-demangle") or ("/opt/swift/usr/bin/swift-demangle" if os.path.exists("/opt/swift/usr/bin/swift-demangle") else None)
    if not tool:
        return {name: name for name in names}
    result = subprocess.run([tool, "--simplified", "--compact"], input="\n".join(names) + "\n", capture_output=True, text=True)
    lines = result.stdout.splitlines()
    return dict(zip(names, lines)) if result.returncode == 0 and len(lines) == len(names) else {name: name for name in names}


def profile(qemu, library, binary, arguments, root, top=25):
    """Prints a frame's instructions per function and the hottest blocks."""
    import tempfile
    fixed = ["--threads", "1", "--format", "XRGB8888"]
    with tempfile.TemporaryDirectory() as directory:
        runs = {}
        for frames in (40, 10):
            path = os.path.join(directory, f"{frames}.txt")
            count(qemu, library, binary, arguments + fixed + ["--frames", str(frames)], root, path)
            runs[frames] = blocks(path)
    per_block = {}
    for address in set(runs[40]) | set(runs[10]):
        many, symbol = runs[40].get(address, (0, None))
        few, other = runs[10].get(address, (0, None))
        per_block[address] = ((many - few) / 30, symbol or other)
    per_symbol = {}
    for instructions, symbol in per_block.values():
        per_symbol[symbol] = per_symbol.get(symbol, 0) + instructions
    frame = sum(per_symbol.values())
    names = demangled(sorted(per_symbol))
    print(f"{' '.join(arguments)}: {frame / 1e6:.3f} M instructions a frame")
    print("\n| M a frame | share | function |\n|---:|---:|---|")
    for symbol, instructions in sorted(per_symbol.items(), key=lambda item: -item[1])[:top]:
        print(f"| {instructions / 1e6:.3f} | {100 * instructions / frame:.1f} % | {names[symbol][:150]} |")
    print("\n| M a frame | block | function |\n|---:|---|---|")
    for address, (instructions, symbol) in sorted(per_block.items(), key=lambda item: -item[1][0])[:top]:
        print(f"| {instructions / 1e6:.3f} | {address:#x} | {names[symbol][:110]} |")


def budgets(path):
    """{(scene, size): M instructions} from a budget file."""
    out = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            *scene, size, limit = line.split()
            name = " ".join(scene)
            if name not in SCENES:
                sys.exit(f"{path}:{number}: unknown scene {name!r} (known: {', '.join(SCENES)})")
            out[(name, size)] = float(limit)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--amd64", help="the x86-64 chakrad (not with --budget)")
    parser.add_argument("--arm64", help="the aarch64 chakrad")
    parser.add_argument("--sysroot", help="the arm64 root its libraries are in (qemu -L)")
    parser.add_argument("--size", action="append", help="sizes (default 800x480 and 1920x1080)")
    parser.add_argument("--scene", action="append", choices=list(SCENES), help="scenes (default all)")
    parser.add_argument("--build", default=os.path.join(HERE, "..", "..", ".build-insn"), help="where the plugin is built")
    parser.add_argument("--budget", help="aarch64 only: fail when a scene costs more than this file allows")
    parser.add_argument("--fps", type=float, default=60)
    parser.add_argument("--ghz", type=float, default=1.5, help="the A72's clock (Raspberry Pi 4: 1.5)")
    parser.add_argument("--ipc", type=float, default=1.5, help="instructions a cycle assumed on the A72")
    parser.add_argument("--profile", action="store_true",
                        help="a frame's instructions per function and block, of --arm64 (with --sysroot) or else --amd64")
    options = parser.parse_args()
    if options.profile:
        if not (options.arm64 and options.sysroot) and not options.amd64:
            parser.error("--profile needs --arm64 and --sysroot, or --amd64")
        library = plugin(os.path.abspath(options.build))
        qemu, binary, root = ("qemu-aarch64", options.arm64, options.sysroot) if options.arm64 else ("qemu-x86_64", options.amd64, None)
        for scene in options.scene or ["heart"]:
            for size in options.size or ["800x480"]:
                profile(qemu, library, os.path.abspath(binary), SCENES[scene] + ["--size", size], root)
        return 0
    if not options.arm64 or not options.sysroot:
        parser.error("give --arm64 and --sysroot")
    if bool(options.amd64) == bool(options.budget):
        parser.error("give --amd64 (the table beside x86-64) or --budget (the check), not both")

    qemus = ["qemu-aarch64"] + ([] if options.budget else ["qemu-x86_64"])
    for qemu in qemus:
        if not shutil.which(qemu):
            sys.exit(f"{qemu} is missing (Debian package qemu-user: the static build cannot load plugins)")
    library = plugin(os.path.abspath(options.build))
    limits = budgets(options.budget) if options.budget else {}
    pairs = sorted(limits) if limits else [(scene, size) for scene in options.scene or list(SCENES)
                                           for size in options.size or ["800x480", "1920x1080"]]

    def a72(instructions):
        """Percent of one A72 core at the frame rate."""
        return 100 * instructions * options.fps / (options.ipc * options.ghz * 1e9)

    over = []
    if limits:
        print(f"| scene | size | aarch64 M | budget M | A72 core at {options.fps:g} fps (IPC {options.ipc:g}, {options.ghz:g} GHz) |")
        print("|---|---|---:|---:|---:|")
    else:
        print(f"| scene | size | aarch64 M | x86-64 M | aarch64 / x86-64 | A72 core at {options.fps:g} fps (IPC {options.ipc:g}, {options.ghz:g} GHz) |")
        print("|---|---|---:|---:|---:|---:|")
    for scene, size in pairs:
        arguments = SCENES[scene] + ["--size", size]
        arm = per_frame("qemu-aarch64", library, os.path.abspath(options.arm64), arguments, options.sysroot)
        if limits:
            limit = limits[(scene, size)]
            print(f"| {scene} | {size} | {arm / 1e6:.2f} | {limit:.2f} | {a72(arm):.0f} % |", flush=True)
            if arm / 1e6 > limit:
                over.append(f"{scene} at {size}: {arm / 1e6:.2f} M instructions a frame, budget {limit:.2f} M")
        else:
            x86 = per_frame("qemu-x86_64", library, os.path.abspath(options.amd64), arguments)
            print(f"| {scene} | {size} | {arm / 1e6:.2f} | {x86 / 1e6:.2f} | {arm / x86:.2f} | {a72(arm):.0f} % |", flush=True)
    for line in over:
        print(f"over budget: {line}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
