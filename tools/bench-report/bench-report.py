#!/usr/bin/env python3
"""The frame benchmark as people read it: a Markdown table and a PNG chart.

    tools/bench-report/bench-report.py CHAKRAD OUT-DIR [--size WxH]... [--frames N]
        [--instructions] [--rss] [--from OUT-DIR/bench.jsonl]

Runs `CHAKRAD bench --json` for every scene at the kiosk sizes (800x480,
1024x600, 1280x800, 1920x1080 unless --size is given), on one thread and
on all cores, and writes into OUT-DIR:

  bench.jsonl  the objects chakrad printed, one a line (--from reads them
               back instead of measuring: the chart again, no new run)
  bench.md     a table per thread count: median and p99 ms a frame, CPU ms
               a frame, the memcpy floor and the median's multiple of it,
               and (with --instructions) callgrind's instructions a frame
  bench.png    ms a frame (median) by size for each scene, one thread
               solid, all cores dashed, against the memcpy floor (grey)

--instructions also counts instructions a frame with valgrind's callgrind
(one thread: `bench --frames 40` minus `--frames 10`, divided by 30),
which, unlike wall times, do not move when another process holds a core.
It takes minutes per scene and size.

--rss adds the daemon's memory: at each size, `chakrad run` on the
headless output at 60 fps, its resident set (VmRSS) 3 s after start and
3 s after a cut to each scene in turn, then after crossfades to drift and
back to the heart with three snapshots during each, and the peak (VmHWM).

The chart needs matplotlib; `make bench-report` runs this script with a
virtual environment that has it (made once in ~/.cache/chakra-bench).
"""
import argparse, json, os, re, subprocess, sys, tempfile

SIZES = ["800x480", "1024x600", "1280x800", "1920x1080"]
SCENES = ["heart", "drift", "calm", "spiral"]


def measure(chakrad, sizes, frames):
    arguments = [chakrad, "bench", "--json", "--frames", str(frames), "--threads", "1", "--threads", str(os.cpu_count() or 1)]
    for size in sizes:
        arguments += ["--size", size]
    output = subprocess.run(arguments, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def instructions(chakrad, scene, size):
    """Instructions a frame, one thread, from two callgrind runs."""
    counts = []
    with tempfile.TemporaryDirectory() as work:
        for frames in (10, 40):
            out = os.path.join(work, f"callgrind.{frames}")
            run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", chakrad, "bench", "--scene", scene,
                                  "--size", size, "--threads", "1", "--frames", str(frames)], capture_output=True, text=True)
            match = re.search(r"Collected : (\d+)", run.stderr)
            if run.returncode != 0 or not match:
                raise SystemExit(f"callgrind failed for {scene} {size}:\n{run.stderr[-2000:]}")
            counts.append(int(match.group(1)))
    return (counts[1] - counts[0]) / 30


def rss_rows(chakrad, sizes):
    """[(size, [(step, MB)], peak MB)]: the daemon's memory scene by scene."""
    import shutil, signal, time
    from control_socket import request, start_headless
    def memory(pid):
        fields = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status") if ":" in line)
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
    results = []
    for size in sizes:
        work = tempfile.mkdtemp(prefix="chakra-rss-")
        daemon, path = start_headless(chakrad, work, size, "heart")
        try:
            time.sleep(3)
            steps = [("start (heart)", memory(daemon.pid)[0])]
            for scene in SCENES[1:] + ["heart"]:
                request(path, {"cmd": "switch", "scene": scene, "transition": "cut"})
                time.sleep(3)
                steps.append((scene, memory(daemon.pid)[0]))
            for scene in ["drift", "heart"]:
                request(path, {"cmd": "switch", "scene": scene, "transition": "crossfade", "duration": 2})
                time.sleep(1)
                for _ in range(3):
                    request(path, {"cmd": "snapshot"})
                time.sleep(2)
            rss, peak = memory(daemon.pid)
            steps.append(("after crossfades and snapshots", rss))
            results.append((size, steps, peak))
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait()
            shutil.rmtree(work, ignore_errors=True)
    return results


def rss_table(results):
    steps = [name for name, _ in results[0][1]]
    lines = ["**Memory of the running daemon** (MB resident; headless, 60 fps)", "",
             "| size | " + " | ".join(steps) + " | peak |", "|---|" + "---:|" * (len(steps) + 1)]
    for size, values, peak in results:
        lines.append(f"| {size} | " + " | ".join(f"{mb:.1f}" for _, mb in values) + f" | {peak:.1f} |")
    return "\n".join(lines) + "\n"


def table(rows, counts):
    lines = []
    for threads in sorted({r["threads"] for r in rows}):
        lines += [f"**{threads} thread{'s' if threads > 1 else ''}**", "",
                  "| scene | size | median ms | p99 ms | CPU ms/frame | memcpy ms | median/memcpy"
                  + (" | M instructions/frame |" if counts else " |"),
                  "|---|---|---:|---:|---:|---:|---:" + ("|---:|" if counts else "|")]
        for r in rows:
            if r["threads"] != threads:
                continue
            size = f"{r['width']}x{r['height']}"
            line = (f"| {r['scene']} | {size} | {r['median_ms']:.2f} | {r['p99_ms']:.2f} | {r['cpu_ms_per_frame']:.2f} | "
                    f"{r['memcpy_ms']:.3f} | {r['median_ms'] / r['memcpy_ms']:.0f}× |")
            if counts:
                value = counts.get((r["scene"], size))
                line += f" {value / 1e6:.1f} |" if value is not None and threads == 1 else " |"
            lines.append(line)
        lines.append("")
    return "\n".join(lines)


def chart(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sizes = sorted({(r["width"], r["height"]) for r in rows}, key=lambda s: s[0] * s[1])
    labels = [f"{w}x{h}" for w, h in sizes]
    positions = {s: i for i, s in enumerate(sizes)}
    figure, axes = plt.subplots(figsize=(8, 5.2), dpi=100)
    threads = sorted({r["threads"] for r in rows})
    colours = {"heart": "#d9534f", "drift": "#5b8def", "calm": "#3aa57a", "spiral": "#a05ad8"}
    for scene in [s for s in SCENES if any(r["scene"] == s for r in rows)]:
        for count in threads:
            points = sorted((positions[(r["width"], r["height"])], r["median_ms"]) for r in rows
                            if r["scene"] == scene and r["threads"] == count)
            style = "-" if count == threads[0] else "--"
            axes.plot([p[0] for p in points], [p[1] for p in points], style, marker="o", color=colours.get(scene, "black"),
                      label=f"{scene}, {count} thread{'s' if count > 1 else ''}")
    floor = sorted({(positions[(r["width"], r["height"])], r["memcpy_ms"]) for r in rows if r["threads"] == threads[0]})
    floor = [min(m for x, m in floor if x == i) for i in range(len(sizes))]
    axes.plot(range(len(sizes)), floor, ":", color="grey", marker="s", label="memcpy of the frame (floor)")
    axes.set_yscale("log")
    axes.set_xticks(range(len(sizes)), labels)
    axes.set_xlabel("frame size")
    axes.set_ylabel("ms per frame (median, log scale)")
    axes.axhline(1000 / 60, color="black", linewidth=0.6)
    axes.text(0, 1000 / 60 * 1.05, "16.7 ms: 60 fps", ha="left", va="bottom", fontsize=8)
    axes.grid(True, which="both", axis="y", linewidth=0.3)
    axes.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    axes.set_title("chakrad bench: ms per frame by scene and size")
    figure.tight_layout()
    figure.savefig(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chakrad")
    parser.add_argument("out")
    parser.add_argument("--size", action="append")
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--rss", action="store_true")
    parser.add_argument("--from", dest="source")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.source:
        rows = [json.loads(line) for line in open(args.source) if line.strip()]
    else:
        rows = measure(args.chakrad, args.size or SIZES, args.frames)
        with open(os.path.join(args.out, "bench.jsonl"), "w") as f:
            f.writelines(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    counts = {}
    if args.instructions:
        for scene, size in sorted({(r["scene"], f"{r['width']}x{r['height']}") for r in rows}):
            counts[(scene, size)] = instructions(args.chakrad, scene, size)
            print(f"{scene} {size}: {counts[(scene, size)] / 1e6:.1f} M instructions a frame", file=sys.stderr)
    memory = rss_table(rss_rows(args.chakrad, args.size or SIZES)) if args.rss else ""
    cores = rows[0]["cores"] if rows else "?"
    text = (f"# chakrad bench\n\n{rows[0]['frames'] if rows else '?'} frames each, {rows[0]['format'] if rows else '?'}, "
            f"{cores} cores; medians and p99 of wall time, CPU time per frame, and the memcpy of one frame as the floor.\n\n"
            + table(rows, counts) + ("\n" + memory if memory else ""))
    with open(os.path.join(args.out, "bench.md"), "w") as f:
        f.write(text)
    chart(rows, os.path.join(args.out, "bench.png"))
    print(text)
    print(f"wrote {args.out}/bench.md and {args.out}/bench.png", file=sys.stderr)


if __name__ == "__main__":
    main()
