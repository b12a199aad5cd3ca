#!/usr/bin/env python3
"""The running daemon's CPU per presented frame against bench's drawing CPU.

Usage: loop-cost.py CHAKRAD [--scene S ...] [--size WxH ...] [--seconds N] [--json]

For each scene and size, starts `CHAKRAD run` on the headless output at
60 fps with one render thread, waits for it to settle, then reads the
process's CPU time (utime + stime from /proc, per thread too) and its frame
count from `status` at the start and the end of N seconds (default 20),
each read as status publishes a new count (every two seconds): CPU
per frame is the difference of the two over the frames presented between
them, so start-up is not counted. Then `CHAKRAD bench` with one thread gives
the drawing CPU per frame for the same scene, size and scene times, once
back to back and once `--paced` (frames 1/60 s apart, sleeping between
them as the daemon does). Daemon minus paced bench is the loop's own cost
(pacing, presenting, status, the control thread); paced minus back to back
is what waking from a sleep costs any frame (caches gone cold). Run it on a quiet machine: CPU time per frame moves with what
else runs on the other cores (caches, memory bandwidth).
"""
import argparse, json, os, shutil, signal, subprocess, tempfile, time

from control_socket import request, start_headless

TICK = os.sysconf("SC_CLK_TCK")


def thread_counters(pid):
    """{thread name: [CPU seconds, context switches]} from /proc/PID/task."""
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = open(f"/proc/{pid}/task/{tid}/stat").read()
            status = open(f"/proc/{pid}/task/{tid}/status").read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        seconds = (int(fields[11]) + int(fields[12])) / TICK
        switches = sum(int(line.split()[1]) for line in status.splitlines() if "ctxt_switches:" in line)
        entry = threads.setdefault(name, [0, 0])
        entry[0] += seconds
        entry[1] += switches
    return threads


def fresh_count(path, pid):
    """The frame count and CPU times just after status was updated: status
    publishes its count every two seconds, so a count read at any moment is
    up to two seconds old; polled until it changes, it is current."""
    last = request(path, {"cmd": "status"})["result"]["frames"]
    while True:
        time.sleep(0.01)
        frames = request(path, {"cmd": "status"})["result"]["frames"]
        if frames != last:
            return frames, thread_counters(pid), time.monotonic()


def daemon_cost(chakrad, scene, size, seconds, threads=1):
    work = tempfile.mkdtemp(prefix="chakra-loop-")
    daemon, path = start_headless(chakrad, work, size, scene, threads=threads)
    try:
        time.sleep(3)
        frames0, cpu0, time0 = fresh_count(path, daemon.pid)
        time.sleep(seconds)
        frames1, cpu1, time1 = fresh_count(path, daemon.pid)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait()
        shutil.rmtree(work, ignore_errors=True)
    frames = frames1 - frames0
    per_thread = {name: [(cpu1[name][k] - cpu0.get(name, [0, 0])[k]) / frames for k in (0, 1)] for name in cpu1}
    # The control thread's switches are this script's status requests.
    render_switches = sum(v[1] for name, v in per_thread.items() if name != "chakra-control")
    cpu = {name: v[0] * 1000 for name, v in per_thread.items()}
    return frames / (time1 - time0), sum(cpu.values()), cpu, render_switches


def bench_cost(chakrad, scene, size, seconds, paced):
    """Bench's CPU a frame over the scene times the daemon drew (its first
    seconds + 5: particles appear only after their delays, so a shorter run
    draws less), back to back or paced at 60 fps."""
    frames = int((seconds + 5) * 60)
    run = subprocess.run([chakrad, "bench", "--scene", scene, "--size", size, "--threads", "1", "--frames", str(frames), "--json"]
                         + (["--paced"] if paced else []), capture_output=True, text=True)
    if run.returncode != 0:
        if paced:
            return None   # a build from before `bench --paced`
        raise SystemExit(f"bench failed for {scene} {size}:\n{run.stderr[-2000:]}")
    return json.loads(run.stdout.splitlines()[0])["cpu_ms_per_frame"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chakrad")
    parser.add_argument("--scene", action="append")
    parser.add_argument("--size", action="append")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for scene in args.scene or ["heart"]:
        for size in args.size or ["800x480", "1920x1080"]:
            fps, daemon_ms, threads, switches = daemon_cost(args.chakrad, scene, size, args.seconds)
            bench_ms = bench_cost(args.chakrad, scene, size, args.seconds, paced=False)
            paced_ms = bench_cost(args.chakrad, scene, size, args.seconds, paced=True)
            rows.append(dict(scene=scene, size=size, fps=round(fps, 2), daemon_cpu_ms_per_frame=round(daemon_ms, 3),
                             bench_cpu_ms_per_frame=round(bench_ms, 3),
                             paced_bench_cpu_ms_per_frame=None if paced_ms is None else round(paced_ms, 3),
                             beyond_drawing_ms=round(daemon_ms - bench_ms, 3),
                             beyond_paced_ms=None if paced_ms is None else round(daemon_ms - paced_ms, 3),
                             core_percent_at_60=round(daemon_ms * 6, 1),
                             context_switches_per_frame=round(switches, 2),
                             threads={k: round(v, 3) for k, v in sorted(threads.items()) if v > 0}))
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return
    print("| scene | size | fps | daemon CPU ms/frame | bench CPU ms/frame (back to back / paced) | daemon beyond bench (back to back / paced) "
          "| % of a core at 60 fps | render context switches/frame | by thread (ms/frame) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        threads = ", ".join(f"{k} {v}" for k, v in r["threads"].items())
        print(f"| {r['scene']} | {r['size']} | {r['fps']} | {r['daemon_cpu_ms_per_frame']} | {r['bench_cpu_ms_per_frame']} / "
              f"{r['paced_bench_cpu_ms_per_frame'] or '–'} | {r['beyond_drawing_ms']:+} / "
              f"{'–' if r['beyond_paced_ms'] is None else format(r['beyond_paced_ms'], '+')} | {r['core_percent_at_60']} | {r['context_switches_per_frame']} | {threads} |")


if __name__ == "__main__":
    main()
