#!/usr/bin/env python3
"""Configuration files that never end, or are not files: is the picture safe?

Against the given chakrad (release, headless output, its own control
socket), with each of these as the main file and as a drop-in:
    a FIFO (its open waits for a writer), /dev/zero (through a link: a
    device that never ends), a directory, a 2 MiB file:
  - at start: chakrad exits with 78 within 2 s, its log naming the file
    and what it is;
  - while running: `reload` over the socket, then SIGHUP. Each is refused
    with the reason (config_invalid, the file named), answered within 2 s,
    counted once in errors.config_reload; the settings stay.
And a 1 MiB file of 100,000 unknown tables (valid TOML: accepted, its
warnings bounded to 20 and a count) as the main file and as a drop-in, by
`reload` and by SIGHUP. Throughout, a sampler asks `health` every 50 ms on
a connection of its own: the largest last_frame_age seen (how long the
screen went without a new frame, to within the 50 ms), less what the
frame loop's thread waited for a CPU meanwhile (the kernel's count, in
/proc/PID/task/PID/schedstat: a machine too busy to run it is not the
daemon's stall), must stay under 0.5 s, and every request is answered (ping too). At the end a good file
is applied by `reload` and by SIGHUP, and SIGTERM exits 0. Prints the
largest frame gap of each step.

    tests/faults/configfiles.py path/to/chakrad

Holds with `stress-ng --cpu 2` beside it. A host so busy that frames
stall without any reload shows it in the first line (the baseline: two
seconds before the first step), and fails that check too.
"""
import json, os, shutil, signal, socket, subprocess, sys, tempfile, threading, time

# restart.py's way to start chakrad headless and wait for its first frame
# (this directory is on sys.path when a script here runs).
from restart import start, wait_first_frame

GAP_LIMIT_S = 0.5
ANSWER_LIMIT_S = 2.0
START_LIMIT_S = 2.0
CONFIG = """[display]
output = "headless"
vt = "none"
backlight = "none"
cec = "none"
fps = 30
[render]
threads = 1
[control]
socket = "{sock}"
[low_power]
fps = {low_power_fps}
"""
# What each bad thing is called in the error.
KINDS = {
    "fifo": "not a regular file (a FIFO)",
    "dev-zero": "not a regular file (a character device)",
    "directory": "not a regular file (a directory)",
    "2 MiB": "larger than 1 MiB (2097152 bytes); not a configuration file",
}


def make(kind, path):
    """Puts the bad thing `kind` at `path`."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        os.symlink("/dev/zero", path)
    elif kind == "directory":
        os.mkdir(path)
    else:
        with open(path, "w") as f:
            f.write("#" * (2 * 1024 * 1024 - 1) + "\n")


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        os.rmdir(path)
    elif os.path.lexists(path):
        os.unlink(path)


def unblock(path):
    """Lets a reader blocked in open(2) on the FIFO at `path` go (an old chakrad)."""
    try:
        if os.path.exists(path) and not os.path.isdir(path) and os.stat(path).st_mode & 0o170000 == 0o010000:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def request(path, timeout=ANSWER_LIMIT_S, **fields):
    """The whole reply to one request on a connection of its own; None when unanswered in time."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(path)
            s.sendall((json.dumps(fields) + "\n").encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(1 << 20)
                if not chunk:
                    return None
                data += chunk
        return json.loads(data)
    except (OSError, ValueError):
        return None


def run_delay(pid):
    """Seconds the frame loop's thread (the main one: with [render]
    threads = 1 it draws the frames too) has waited for a CPU while
    runnable, in all: schedstat's second field, the kernel's own count.
    None where the kernel keeps none."""
    try:
        return int(open(f"/proc/{pid}/task/{pid}/schedstat").read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


class Sampler(threading.Thread):
    """`health` every 50 ms on one connection: (time, last_frame_age, the
    loop thread's run delay so far), and the longest wait for an answer."""

    def __init__(self, path, pid):
        super().__init__(daemon=True)
        self.path, self.pid, self.samples, self.longest_wait, self.stopping = path, pid, [], 0.0, False

    def run(self):
        connection = None
        while not self.stopping:
            asked = time.monotonic()
            try:
                if connection is None:
                    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    connection.settimeout(1)
                    connection.connect(self.path)
                    reader = connection.makefile("rb")
                connection.sendall(b'{"cmd": "health"}\n')
                reply = json.loads(reader.readline())
                answered = time.monotonic()
                self.samples.append((answered, reply["result"]["last_frame_age"] or 0.0, run_delay(self.pid)))
            except (OSError, ValueError, KeyError, TypeError):
                answered = time.monotonic()
                self.samples.append((answered, None, None))   # unanswered within 1 s
                connection = None
            self.longest_wait = max(self.longest_wait, answered - asked)
            time.sleep(max(0.0, 0.05 - (time.monotonic() - asked)))

    def largest_gap(self, since, until):
        """The largest frame age seen from `since` to `until` (the first
        sample after included), less what the loop's thread waited for a
        CPU over that age (a machine too busy to run it is not the
        daemon's stall; a thread blocked on a file or a lock is)."""
        samples = list(self.samples)
        gaps = []
        for index, (t, age, delay) in enumerate(samples):
            if not since <= t <= until + 0.1:
                continue
            if age is None:
                return None
            began = t - age
            # The run delay at the start of the gap: the last sample before it.
            before = next((d for u, a, d in reversed(samples[:index]) if u <= began and d is not None), None)
            waited = delay - before if delay is not None and before is not None else 0.0
            gaps.append(max(0.0, age - waited))
        return max(gaps, default=0.0)


def start_checks(binary, work, failures, lines):
    """Each bad thing as --config and as a drop-in: exit 78 at once, the file named."""
    cases = [(kind, place) for kind in KINDS for place in ("main", "drop-in")] + [("/dev/zero", "main")]
    for kind, place in cases:
        directory = tempfile.mkdtemp(dir=work, prefix="start-")
        main = os.path.join(directory, "chakra.toml") if kind != "/dev/zero" else "/dev/zero"
        bad = main
        if kind != "/dev/zero":
            os.mkdir(main + ".d")
            if place == "main":
                make(kind, main)
            else:
                with open(main, "w") as f:
                    f.write(CONFIG.format(sock=os.path.join(directory, "control.sock"), low_power_fps=15))
                bad = os.path.join(main + ".d", "50-bad.toml")
                make(kind, bad)
        reason = KINDS.get(kind, "not a regular file (a character device)")
        log = os.path.join(directory, "log")
        began = time.monotonic()
        process = subprocess.Popen([binary, "run", "--config", main, "--headless-size", "320x180"],
                                   stdout=open(log, "w"), stderr=subprocess.STDOUT)
        try:
            code = process.wait(timeout=START_LIMIT_S)
        except subprocess.TimeoutExpired:
            code = None
            unblock(bad)
            process.kill()
            process.wait()
        took = time.monotonic() - began
        text = open(log).read()
        lines.append(f"start, {kind} as {place}: " + (f"exit {code} in {took * 1000:.0f} ms" if code is not None else f"still running after {START_LIMIT_S:g} s"))
        if code != 78:
            failures.append(f"start with {kind} as {place}: " + ("no exit within 2 s" if code is None else f"exit {code}, not 78") + f"\n{text}")
        elif f"{bad}: cannot read the file: {reason}" not in text:
            failures.append(f"start with {kind} as {place}: the log does not say '{bad}: cannot read the file: {reason}':\n{text}")


class Running:
    """One chakrad with a good configuration, driven step by step."""

    def __init__(self, binary, work):
        self.work = work
        self.sock = os.path.join(work, "control.sock")
        self.main = os.path.join(work, "chakra.toml")
        self.dropins = self.main + ".d"
        os.mkdir(self.dropins)
        self.write_good(15)
        self.log = os.path.join(work, "running.log")
        self.process = start(binary, self.main, self.log)
        if wait_first_frame(self.process, self.sock, time.monotonic() + 30) is None:
            raise SystemExit("FAIL: chakrad did not start:\n" + open(self.log).read())
        self.sampler = Sampler(self.sock, self.process.pid)
        self.sampler.start()

    def write_good(self, low_power_fps, extra=""):
        remove(self.main)
        with open(self.main, "w") as f:
            f.write(CONFIG.format(sock=self.sock, low_power_fps=low_power_fps) + extra)

    def refusals(self):
        reply = request(self.sock, cmd="status")
        return reply["result"]["errors"]["config_reload"] if reply and "result" in reply else None

    def log_count(self, text):
        return open(self.log).read().count(text)

    def wait_until(self, condition, limit):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if condition():
                return True
            time.sleep(0.02)
        return False

    def stop(self):
        self.sampler.stopping = True
        self.sampler.join(timeout=5)
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


def by_socket(daemon, bad, reason):
    """`reload`: refused with the reason, answered in time, counted once."""
    before = daemon.refusals()
    if before is None:
        return "status unanswered"
    began = time.monotonic()
    reply = request(daemon.sock, timeout=5, cmd="reload")
    took = time.monotonic() - began
    if reply is None:
        unblock(bad)
        return "reload: no answer within 5 s"
    error = reply.get("error") or {}
    if error.get("code") != "config_invalid" or f"{bad}: cannot read the file: {reason}" not in error.get("message", ""):
        return f"reload: {reply}"
    if took > ANSWER_LIMIT_S:
        return f"reload answered after {took:.1f} s"
    if daemon.refusals() != before + 1:
        return f"reload: errors.config_reload went from {before} to {daemon.refusals()}, not up by one"
    return None


def by_signal(daemon, bad, reason):
    """SIGHUP: refused (counted once, logged with the reason) in time."""
    before, logged = daemon.refusals(), daemon.log_count(f"{bad}: cannot read the file: {reason}")
    if before is None:
        return "status unanswered"
    daemon.process.send_signal(signal.SIGHUP)
    counted = daemon.wait_until(lambda: (daemon.refusals() or 0) > before, ANSWER_LIMIT_S)
    if not counted:
        unblock(bad)
        daemon.wait_until(lambda: (daemon.refusals() or 0) > before, 5)
        return f"SIGHUP: not refused within {ANSWER_LIMIT_S:g} s"
    time.sleep(0.1)
    if daemon.refusals() != before + 1:
        return f"SIGHUP: errors.config_reload went from {before} to {daemon.refusals()}, not up by one"
    if not daemon.wait_until(lambda: daemon.log_count(f"{bad}: cannot read the file: {reason}") > logged, 1):
        return "SIGHUP: the log does not give the reason"
    return None


def step(daemon, name, action, failures, lines):
    """Runs `action`, then 0.2 s more of frames; the largest gap over it all."""
    began = time.monotonic()
    problem = action()
    time.sleep(0.2)
    gap = daemon.sampler.largest_gap(began, time.monotonic())
    lines.append(f"{name}: largest frame gap " + ("unknown (health unanswered)" if gap is None else f"{gap * 1000:.0f} ms"))
    if problem:
        failures.append(f"{name}: {problem}")
    if gap is None or gap >= GAP_LIMIT_S:
        failures.append(f"{name}: frames stopped: " + ("health went unanswered" if gap is None else f"{gap * 1000:.0f} ms without a new frame"))
    if request(daemon.sock, timeout=1, cmd="ping") is None:
        failures.append(f"{name}: ping unanswered")


def running_checks(binary, work, failures, lines):
    daemon = Running(binary, work)
    began = time.monotonic()
    # What this host does to the frames with no reload at all: a machine
    # so loaded that they stall anyway fails the gap checks for itself.
    time.sleep(2)
    baseline = daemon.sampler.largest_gap(began, time.monotonic())
    lines.append("no reload (baseline): largest frame gap " + ("unknown" if baseline is None else f"{baseline * 1000:.0f} ms"))
    if baseline is None or baseline >= GAP_LIMIT_S:
        failures.append("frames stall on this host with no reload at all (baseline above): the gaps below say little")
    try:
        for kind, reason in KINDS.items():
            for place in ("main", "drop-in"):
                bad = daemon.main if place == "main" else os.path.join(daemon.dropins, "50-bad.toml")
                if place == "main":
                    remove(daemon.main)
                make(kind, bad)
                step(daemon, f"reload, {kind} as {place}", lambda: by_socket(daemon, bad, reason), failures, lines)
                step(daemon, f"SIGHUP, {kind} as {place}", lambda: by_signal(daemon, bad, reason), failures, lines)
                unblock(bad)
                remove(bad)
                if place == "main":
                    daemon.write_good(15)
        reply = request(daemon.sock, cmd="get", key="low_power.fps")
        if not reply or reply.get("result", {}).get("value") != 15:
            failures.append(f"the refused reloads changed the settings: low_power.fps {reply}")

        tables = "".join(f"[t{n}]\n" for n in range(100_000))
        for place in ("main", "drop-in"):
            big = daemon.main if place == "main" else os.path.join(daemon.dropins, "50-tables.toml")
            if place == "main":
                daemon.write_good(15, tables)   # 888,890 bytes: under 1 MiB with the settings
            else:
                with open(big, "w") as f:
                    f.write(tables)

            def reload_tables():
                reply = request(daemon.sock, timeout=10, cmd="reload")
                warnings = (reply or {}).get("result", {}).get("warnings")
                if not warnings or len(warnings) != 21 or "more unknown keys and tables, ignored" not in warnings[-1]:
                    return f"reload: {str(reply)[:300]}"
                return None

            def signal_tables():
                done = daemon.log_count("configuration reloaded from")
                daemon.process.send_signal(signal.SIGHUP)
                if not daemon.wait_until(lambda: daemon.log_count("configuration reloaded from") > done, 10):
                    return "SIGHUP: not applied within 10 s"
                return None

            step(daemon, f"reload, 100,000 unknown tables as {place}", reload_tables, failures, lines)
            step(daemon, f"SIGHUP, 100,000 unknown tables as {place}", signal_tables, failures, lines)
            if place == "main":
                daemon.write_good(15)
            else:
                remove(big)

        daemon.write_good(12)
        reply = request(daemon.sock, cmd="reload")
        if not reply or "low_power.fps" not in reply.get("result", {}).get("changed", []):
            failures.append(f"a good file afterwards: reload said {reply}")
        daemon.write_good(11)
        daemon.process.send_signal(signal.SIGHUP)
        if not daemon.wait_until(lambda: (request(daemon.sock, cmd="get", key="low_power.fps") or {}).get("result", {}).get("value") == 11, 5):
            failures.append("a good file afterwards: SIGHUP did not apply it")
        if daemon.sampler.longest_wait > 1.0:
            failures.append(f"health went {daemon.sampler.longest_wait:.1f} s unanswered")
        overall = daemon.sampler.largest_gap(began, time.monotonic())
        if overall is None or overall >= GAP_LIMIT_S:
            failures.append("frames stopped at some point between the steps")
        lines.append("all along: largest frame gap " + ("unknown (health unanswered)" if overall is None else f"{overall * 1000:.0f} ms")
                     + f", longest wait for a health answer {daemon.sampler.longest_wait * 1000:.0f} ms")
    finally:
        code = daemon.stop()
        if code != 0:
            failures.append(f"SIGTERM: exit {code}")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="chakra-configfiles-")
    failures, lines = [], []
    began = time.monotonic()
    start_checks(binary, work, failures, lines)
    running_checks(binary, work, failures, lines)
    for line in lines:
        print(line)
    print(f"configfiles: {time.monotonic() - began:.1f} s")
    for failure in failures:
        print("FAIL: " + failure)
    if failures:
        print(f"(files and logs kept in {work})")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("configfiles: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
