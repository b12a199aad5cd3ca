#!/usr/bin/env python3
"""Two chakrads started at the same moment on one socket: exactly one runs?

For each of PAIRS pairs (default 200, as many as fit in BUDGET seconds,
default 60, but at least 50), forks two processes that wait on one pipe
and exec the given chakrad together when it closes, both headless on the
same control socket, each with its own configuration: its own session log
([sessions] file) and its own directory for headless frames
(--headless-png-dir, every frame). Checks for every pair: exactly one
exits, with status 75 and "not starting a second daemon" in its log; it
made neither its session log nor a frame; the other answers `status`,
has made its session log and written frames (so the check can see them),
and exits 0 on SIGTERM. Prints the count and how long the losers took.

    tests/faults/pairs.py path/to/chakrad [pairs] [budget-seconds]

Before the control socket was claimed under a lock (PATH.lock, flock),
the loser of a close race failed at bind (EADDRINUSE) and ran on without
the socket, opening the output and the session log: 1-2 pairs in 40.
"""
import os, shutil, signal, statistics, sys, tempfile, time

# The status request restart.py asks with (this directory is on sys.path
# when a script here runs).
from restart import status

MIN_PAIRS = 50
CONFIG = """[display]
output = "headless"
vt = "none"
backlight = "none"
fps = 30
[control]
socket = "{sock}"
[sessions]
file = "{sessions}"
"""


def spawn_together(argvs, logs):
    """Forks one child per argv, each blocked on a pipe; closing it lets
    them all exec at once. Returns their pids."""
    gate_read, gate_write = os.pipe()
    pids = []
    for argv, log in zip(argvs, logs):
        pid = os.fork()
        if pid == 0:
            try:
                os.close(gate_write)
                fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                os.read(gate_read, 1)   # returns at EOF: the gate opened
                os.execv(argv[0], argv)
            finally:
                os._exit(127)
        pids.append(pid)
    os.close(gate_read)
    os.close(gate_write)
    return pids


def reap(pid, deadline):
    """The exit status (or -signal) once `pid` ends, None at the deadline."""
    while True:
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(code)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.005)


def one_pair(binary, work, number):
    """Runs one pair; returns (failures, seconds until the loser exited)."""
    directory = os.path.join(work, f"pair-{number}")
    os.mkdir(directory)
    sock = os.path.join(directory, "control.sock")
    argvs, logs, sessions, frames = [], [], [], []
    for side in "ab":
        config = os.path.join(directory, f"{side}.toml")
        sessions.append(os.path.join(directory, f"{side}-sessions.log"))
        frames.append(os.path.join(directory, f"{side}-frames"))
        os.mkdir(frames[-1])
        with open(config, "w") as f:
            f.write(CONFIG.format(sock=sock, sessions=sessions[-1]))
        logs.append(os.path.join(directory, f"{side}.log"))
        argvs.append([binary, "run", "--config", config, "--headless-size", "64x36",
                      "--headless-png-dir", frames[-1], "--headless-png-every", "1"])
    started = time.monotonic()
    pids = spawn_together(argvs, logs)
    failures, loser_seconds = [], None
    codes = [None, None]
    try:
        # The loser exits at once; give it 10 s on a busy machine.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and all(c is None for c in codes):
            for i, pid in enumerate(pids):
                if codes[i] is None:
                    codes[i] = reap(pid, 0)
            time.sleep(0.002)
        ended = [i for i, c in enumerate(codes) if c is not None]
        if not ended:
            return [f"pair {number}: both daemons still run after 10 s (neither exited 75)"], None
        loser_seconds = time.monotonic() - started
        loser = ended[0]
        winner = 1 - loser
        if len(ended) == 2:
            return [f"pair {number}: both exited ({codes[0]}, {codes[1]})"], None
        if codes[loser] != 75:
            failures.append(f"pair {number}: the one that stopped exited {codes[loser]}, not 75:\n{open(logs[loser]).read()}")
        text = open(logs[loser]).read()
        if "not starting a second daemon" not in text:
            failures.append(f"pair {number}: the loser's log does not say why:\n{text}")
        # Up and answering, and its output and log are what the loser's are compared with.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (status(sock) or {}).get("frames", 0) < 1:
            if reap(pids[winner], 0) is not None:
                failures.append(f"pair {number}: the winner exited too:\n{open(logs[winner]).read()}")
                return failures, loser_seconds
            time.sleep(0.01)
        if (status(sock) or {}).get("frames", 0) < 1:
            failures.append(f"pair {number}: the winner does not answer with a frame:\n{open(logs[winner]).read()}")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (os.listdir(frames[winner]) and os.path.exists(sessions[winner])):
            time.sleep(0.01)
        if not os.listdir(frames[winner]) or not os.path.exists(sessions[winner]):
            failures.append(f"pair {number}: the winner wrote no frame or no session log (the check could not see them)")
        if os.listdir(frames[loser]):
            failures.append(f"pair {number}: the loser drew frames: {sorted(os.listdir(frames[loser]))[:3]}")
        if os.path.exists(sessions[loser]):
            failures.append(f"pair {number}: the loser made its session log")
        # The log's lines too: the loser never got as far as the output or the sessions.
        for word in ("output:", "headless", "sessions:"):
            if word in text:
                failures.append(f"pair {number}: the loser's log mentions {word!r}:\n{text}")
                break
        os.kill(pids[winner], signal.SIGTERM)
        codes[winner] = reap(pids[winner], time.monotonic() + 30)
        if codes[winner] != 0:
            failures.append(f"pair {number}: the winner exited {codes[winner]} on SIGTERM")
        return failures, loser_seconds
    finally:
        for i, pid in enumerate(pids):
            if codes[i] is None:
                os.kill(pid, signal.SIGKILL)
                reap(pid, time.monotonic() + 10)


def main():
    if len(sys.argv) not in (2, 3, 4):
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    pairs = int(sys.argv[2]) if len(sys.argv) >= 3 else 200
    budget = float(sys.argv[3]) if len(sys.argv) == 4 else 60
    work = tempfile.mkdtemp(prefix="chakra-pairs-")
    failures, losers = [], []
    started = time.monotonic()
    done = 0
    while done < pairs and (done < min(MIN_PAIRS, pairs) or time.monotonic() - started < budget):
        done += 1
        found, seconds = one_pair(binary, work, done)
        failures += found
        if seconds is not None:
            losers.append(seconds)
        if found:
            print("FAIL: " + "\nFAIL: ".join(found), flush=True)
    elapsed = time.monotonic() - started
    print(f"pairs: {done} pairs started together in {elapsed:.0f} s; {done - len({f.split(':')[0] for f in failures})} with exactly one "
          f"daemon running and the other gone with 75, untouched"
          + (f"; the loser exited {statistics.median(losers) * 1000:.0f} ms after the gate (median, max {max(losers) * 1000:.0f} ms)" if losers else ""))
    if failures:
        print(f"(logs kept in {work})")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("pairs: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
