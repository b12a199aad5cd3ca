#!/usr/bin/env python3
"""Adversarial clients beside an operator: is every ping still quick?

Starts the given chakrad on the headless output (1280x720, 60 fps, one
render thread) with its own control socket, as flood.py does, and runs
phases of a few seconds while an operator's ping loop (its own process, a
fresh connection per ping as chakractl makes, one every 50 ms) measures
each answer:

  a  idle: the baseline (and the frame rate to compare with);
  b  10 clients sending `get` with an unknown key as long as the line
     limit allows (16 KiB, the default), back to back, each reading its
     reply;
  d  one client for each of ten other line shapes at the limit, back to
     back: `[[[…`, `{"a":{"a":…`, a huge string id (echoed in the reply),
     many unknown arguments (listed in the reply), many numbers, many
     empty arrays, random bytes, a non-ASCII get key, an unknown command
     and a `set` key as long as the line (both echoed);
  c  b again with `[control] max_line = 1048576` (the largest allowed),
     set by rewriting the configuration and sending `reload`;
  d  d again at 1 MiB;
  e  30 connections that each send `snapshot` and close at once, every
     second for 4 s; the frame rate over it (`frames` from status) against
     a's, then the operator's own snapshot.

Fails (exit 1, a FAIL line each) when in any phase the daemon's own
share of a ping reaches 50 ms at the p99 or the maximum, or a ping is not
answered; when a line shape costs the control thread more than 2 ms of
CPU at 16 KiB or 30 ms at 1 MiB (CPU time, which a busy machine hardly
changes: 0.1-0.3 and 3-6 ms now, 0.3-3.3 and 14-206 ms before long lines
were read aside); when chakrad exits; when the frame rate in e is more
than 15 % below a's; or when the operator's snapshot takes over 10 s
(0.2-0.4 s quiet, up to 3 s beside stress-ng; 23 s before).

The daemon's own share of a ping: the ping loop is a process of its own,
so the adversaries' Python work never holds a ping back, and it asks for
SCHED_RR (root, or RLIMIT_RTPRIO), so its own wait for a CPU is not
counted ("late" shows what is left of it). Around each ping it reads how
long chakrad's control thread, and the lane long lines are read on, have
waited for a CPU while runnable (/proc/PID/task/TID/schedstat, the
kernel's count): that wait is the machine's, and a ping's time less it is
the daemon's. On a quiet machine
the two are nearly the same; beside `stress-ng --cpu 2` on 2 cores pings
took up to 221 ms while the daemon's own share stayed within 2 ms (one
29 ms). For comparison it also pings a reference server at the same
moment, a process that only answers (its maximum is printed): a do-nothing
process there was held up to 1.4 s.
Printed: pings per phase (count, median, p99, max; with about 50 pings a
phase the p99 is the maximum), the reference's maximum, the daemon's own
p99 and maximum, the adversaries' answered requests, the control thread's
CPU and the frame rate; then what each line shape costs the control
thread (CPU per request, one request at a time, from schedstat).

    tests/flood/adversary.py path/to/chakrad

Each phase's first 0.25 s (the adversaries starting) and the drain after
it are not counted. About 25 s on a quiet 2-core machine, 35 s beside
`stress-ng --cpu 2`.
"""
import json, math, multiprocessing, os, random, select, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

# flood.py's connection (a blocking connect bounded by SO_SNDTIMEO, as
# chakractl's) and its request (this directory is on sys.path when a
# script here runs).
from flood import connect_waiting, request

PING_LIMIT_MS = 50.0
# Control-thread CPU per request at the line limit, ms: reading and framing
# the line is all that is left there (0.1-0.3 ms at 16 KiB, 4-6 ms at 1 MiB);
# before long lines were read aside it was 0.3-3.3 and 14-206 ms.
COST_LIMIT_MS = {16384: 2.0, 1048576: 30.0}
PING_PERIOD_S = 0.05
PING_TIMEOUT_S = 5.0
FPS_DROP = 0.15
# The operator's snapshot: 0.2-0.4 s on a quiet machine, up to 3 s beside
# stress-ng (the PNG is made at nice +10); 23 s before the gone clients'
# snapshots were dropped.
SNAPSHOT_LIMIT_S, SNAPSHOT_WAIT_S = 10.0, 12.0
IDLE_S, PHASE_S, RAMP_S = 3.0, 2.5, 0.25
CLIENTS = 10
BURST, BURSTS = 30, 4
DEFAULT_LINE, MAX_LINE = 16384, 1048576   # [control] max_line: default, largest allowed (256-1048576)

CONFIG = """[display]
output = "headless"
vt = "none"
backlight = "none"
fps = 60
[render]
threads = 1
[control]
socket = "{sock}"
max_line = {max_line}
[sessions]
file = "{sessions}"
"""


# MARK: line shapes, each at most `limit` bytes (without the newline)

def repeated(prefix, item, suffix, limit, separator=b","):
    """prefix item,item,… suffix: as many items as fit in limit."""
    count = max(1, (limit - len(prefix) - len(suffix) + len(separator)) // (len(item) + len(separator)))
    return prefix + separator.join([item] * count) + suffix


def filled(prefix, unit, suffix, limit):
    """prefix unit unit … suffix: as many units as fit in limit."""
    return prefix + unit * ((limit - len(prefix) - len(suffix)) // len(unit)) + suffix


def numbered_keys(limit):
    prefix, suffix, parts, size = b'{"cmd":"ping",', b"}", [], 0
    room = limit - len(prefix) - len(suffix)
    for n in range(limit):
        part = b'"k%d":0' % n
        if size + len(part) + 1 > room:
            break
        parts.append(part)
        size += len(part) + 1
    return prefix + b",".join(parts) + suffix


def get_key(limit):
    return filled(b'{"cmd":"get","key":"', b"a", b'"}', limit)


def shapes(limit):
    """The other shapes (phase d), by name."""
    garbage = random.Random(limit).randbytes(limit).replace(b"\n", b" ")
    return {
        "[[[": b"[" * limit,
        '{"a":{"a":': filled(b"", b'{"a":', b"", limit),
        "huge id": filled(b'{"cmd":"ping","id":"', b"x", b'"}', limit),
        "many keys": numbered_keys(limit),
        "many numbers": repeated(b'{"cmd":"ping","x":[', b"1", b"]}", limit),
        "many arrays": repeated(b'{"cmd":"ping","x":[', b"[]", b"]}", limit),
        "garbage": garbage,
        "get key, accents": filled(b'{"cmd":"get","key":"', "e\u0301".encode(), b'"}', limit),
        "long command": filled(b'{"cmd":"', b"x", b'"}', limit),
        "set key": filled(b'{"cmd":"set","key":"', b"x", b'","value":true}', limit),
    }


# MARK: processes beside the test

def ping_loop(sock, reference, stop, pid, out):
    """The operator: every PING_PERIOD_S until told to stop, a ping on a
    fresh connection to chakrad and, at the same moment, one to the
    reference server; sends back its scheduling policy and, per ping,
    (started, ms or None, lateness ms, error, reference ms or None).

    It asks for SCHED_RR (root or RLIMIT_RTPRIO): then a ping's time is the
    daemon's, not the time this process waited for a CPU to send it or to
    read the answer on a loaded machine. It sleeps between pings and blocks
    on the sockets, so it takes next to no CPU from anyone. Without the
    permission it runs as any client does."""
    try:
        os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(1))
        policy = "SCHED_RR"
    except (OSError, AttributeError):
        policy = "normal priority (no permission for SCHED_RR)"
    results, due = [], time.monotonic()
    while not stop.poll():
        now = time.monotonic()
        if now < due:
            time.sleep(due - now)
        started = time.monotonic()
        schedstats = ping_path_schedstats(pid)   # the lane starts with the first long line
        waited = run_delay_ms(schedstats)
        (elapsed, error), (base, _) = pings_together([sock, reference], PING_TIMEOUT_S)
        after = run_delay_ms(schedstats)
        waited = None if waited is None or after is None else after - waited
        results.append((started, elapsed, (started - due) * 1000, error, base, waited))
        due = max(due + PING_PERIOD_S, time.monotonic())
    out.send((policy, results))


def pings_together(paths, timeout):
    """A ping to each path on a fresh connection, all sent before any
    answer is read; for each, (ms from connect to the answer, or None, and
    what went wrong)."""
    outcome = [(None, "not sent")] * len(paths)
    waiting = {}
    deadline = time.monotonic() + timeout
    for index, path in enumerate(paths):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        started = time.monotonic()
        try:
            connect_waiting(s, path, timeout)
            s.sendall(b'{"cmd":"ping"}\n')
            waiting[s] = (index, started, bytearray())
        except OSError as failure:
            s.close()
            outcome[index] = (None, f"{type(failure).__name__}: {failure}")
    while waiting:
        ready = select.select(list(waiting), [], [], max(0.0, deadline - time.monotonic()))[0]
        now = time.monotonic()
        if not ready:
            for s, (index, _, _) in waiting.items():
                outcome[index] = (None, f"no answer within {timeout:.0f} s")
                s.close()
            break
        for s in ready:
            index, started, data = waiting[s]
            try:
                chunk = s.recv(65536)
            except OSError:
                chunk = b""
            data += chunk
            if chunk and not data.endswith(b"\n"):
                continue
            del waiting[s]
            s.close()
            try:
                ok = json.loads(data).get("ok") is True
            except ValueError:
                ok = False
            outcome[index] = ((now - started) * 1000, None) if ok else (None, f"answered {bytes(data[:200])!r}")
    return outcome


# The daemon's threads a ping can wait on: the control thread, which
# answers it, and the lane long lines are read on (the control thread
# takes their results through an inbox whose lock the lane may hold while
# the machine keeps it off a CPU: a wait of the control thread's that its
# own count does not show). Beside `stress-ng --cpu 2` and a second make
# test, the control thread's count alone left a 50.2 ms "own" share of a
# ping in phase c (1 MiB lines), over the limit.
PING_PATH_THREADS = ("chakra-control", "chakra-requests")


def ping_path_schedstats(pid):
    """The schedstat files of chakrad's PING_PATH_THREADS that exist now."""
    paths = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return paths
    for task in tasks:
        try:
            if open(f"/proc/{pid}/task/{task}/comm").read().strip() in PING_PATH_THREADS:
                paths.append(f"/proc/{pid}/task/{task}/schedstat")
        except OSError:
            pass
    return paths


def run_delay_ms(schedstats):
    """How long (ms, in all) the daemon's threads on a ping's path have
    waited for a CPU while runnable: schedstat's second field, the kernel's
    own count, summed. Over one ping, the part of its time that was the
    machine's, not the daemon's (summed, an upper bound when both waited
    at once: only on a loaded machine, where the count is not 0). None
    when the kernel does not keep it."""
    try:
        return sum(int(open(path).read().split()[1]) for path in schedstats) / 1e6 if schedstats else None
    except (OSError, ValueError, IndexError):
        return None


def reference_server(path, out):
    """Answers every line with a pong and does nothing else, at normal
    priority: how long any process on this machine waits to be woken and
    answer at that moment, the environment's share of a ping."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    out.send("ready")
    while True:
        connection, _ = server.accept()
        with connection:
            data = b""
            while not data.endswith(b"\n"):
                chunk = connection.recv(4096)
                if not chunk:
                    break
                data += chunk
            connection.sendall(b'{"id":null,"ok":true,"result":{"pong":true}}\n')


def adversary(sock, line, until, out):
    """Sends `line` and reads its reply, back to back, until `until`;
    a fresh connection whenever the daemon closed the last one. Sends
    back how many were answered."""
    line += b"\n"
    answered, s = 0, None
    try:
        while time.monotonic() < until:
            if s is None:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                connect_waiting(s, sock, 10.0)
            data = bytearray()
            try:
                s.sendall(line)
                while not data.endswith(b"\n"):
                    chunk = s.recv(1 << 20)
                    if not chunk:
                        break
                    data += chunk
            except (BrokenPipeError, ConnectionResetError):
                pass
            if data.endswith(b"\n"):
                answered += 1
            if not data.endswith(b"\n") or b'"line_too_long"' in data:
                s.close()
                s = None
    except OSError:
        pass
    out.send(answered)


def snapshot_bursts(sock, start, out):
    """BURSTS times, a second apart: BURST connections each send a
    snapshot request and close without reading."""
    sent = 0
    for burst in range(BURSTS):
        delay = start + burst - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        held = []
        for _ in range(BURST):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                connect_waiting(s, sock, 5.0)
                s.sendall(b'{"cmd":"snapshot"}\n')
                sent += 1
            except OSError:
                pass
            held.append(s)
        for s in held:
            s.close()
    out.send(sent)


# MARK: the daemon, from outside

def control_thread(pid):
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            if open(f"/proc/{pid}/task/{task}/comm").read().strip() == "chakra-control":
                return task
        except OSError:
            pass
    return None


def thread_ms(pid, task):
    """CPU time of one thread in ms (schedstat: nanoseconds; else ticks)."""
    if task is None:
        return None
    try:
        return int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0]) / 1e6
    except (OSError, ValueError, IndexError):
        try:
            fields = open(f"/proc/{pid}/task/{task}/stat").read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None


def frames(sock):
    """(time, frames presented, status) now."""
    status = request(sock, '{"cmd":"status"}')["result"]
    return time.monotonic(), status["frames"], status


def line_cost(sock, pid, task, line, repeat):
    """Control-thread CPU (ms) per request of `line`, one at a time."""
    before = thread_ms(pid, task)
    for _ in range(repeat):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            connect_waiting(s, sock, 10.0)
            try:
                s.sendall(line + b"\n")
                while not s.recv(1 << 20).endswith(b"\n"):
                    pass
            except OSError:
                pass
    after = thread_ms(pid, task)
    return None if before is None or after is None else (after - before) / repeat


def percentile(values, fraction):
    """Nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)] if ordered else float("nan")


class Run:
    def __init__(self, chakrad, work):
        self.work = work
        self.sock = os.path.join(work, "control.sock")
        self.config = os.path.join(work, "chakra.toml")
        self.write_config(DEFAULT_LINE)
        self.log = open(os.path.join(work, "chakrad.log"), "w")
        self.daemon = subprocess.Popen([chakrad, "run", "--config", self.config, "--headless-size", "1280x720"],
                                       stdout=self.log, stderr=subprocess.STDOUT)
        self.context = multiprocessing.get_context("fork")
        self.phases = []       # (name, start, end, requests answered, control thread %, fps)
        self.failures = []
        self.children = []
        self.task = None
        self.ending = ""       # how chakrad ended
        self.log_tail = []     # its last lines, if it exited by itself

    def write_config(self, max_line):
        with open(self.config, "w") as f:
            f.write(CONFIG.format(sock=self.sock, max_line=max_line, sessions=os.path.join(self.work, "sessions.log")))

    def wait_ready(self):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.daemon.poll() is not None:
                raise SystemExit(f"FAIL: chakrad exited with {self.daemon.returncode} at start")
            try:
                if frames(self.sock)[1] >= 1:
                    break
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.05)
        else:
            raise SystemExit("FAIL: chakrad showed no frame within 10 s")
        time.sleep(0.5)   # past the first frames
        self.task = control_thread(self.daemon.pid)

    def alive(self, where):
        if self.daemon.poll() is not None:
            self.failures.append(f"chakrad exited with {self.daemon.returncode} {where}")
            return False
        return True

    def spawn(self, target, *args):
        here, there = self.context.Pipe(duplex=False)
        child = self.context.Process(target=target, args=(*args, there), daemon=True)
        child.start()
        there.close()
        self.children.append(child)
        return child, here

    def phase(self, name, lines, seconds=PHASE_S):
        """Each line from a client of its own, back to back, for `seconds`."""
        start = time.monotonic()
        until = start + RAMP_S + seconds
        cpu0 = thread_ms(self.daemon.pid, self.task)
        t0, f0, _ = frames(self.sock)
        clients = [self.spawn(adversary, self.sock, line, until) for line in lines]
        time.sleep(max(0, until - time.monotonic()))
        t1, f1, _ = frames(self.sock)
        cpu1 = thread_ms(self.daemon.pid, self.task)
        answered = 0
        for child, pipe in clients:
            if pipe.poll(30):
                answered += pipe.recv()
            child.join(1)
            if child.is_alive():
                child.kill()
        control = None if cpu0 is None or cpu1 is None else (cpu1 - cpu0) / (t1 - t0) / 10
        self.phases.append((name, start + RAMP_S, until, answered if lines else None, control, (f1 - f0) / (t1 - t0)))
        self.drain()

    def drain(self, limit=3.0):
        """Until a ping is quick again (the adversaries read all their
        replies before they end, so this is short): what the last phase
        left queued is not the next phase's."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            started = time.monotonic()
            try:
                request(self.sock, '{"cmd":"ping"}', timeout=PING_TIMEOUT_S)
            except (OSError, ValueError):
                pass
            if time.monotonic() - started < 0.02:
                return
            time.sleep(0.05)

    def set_max_line(self, max_line):
        self.write_config(max_line)
        reply = request(self.sock, '{"cmd":"reload"}', timeout=10)
        if reply.get("ok") is not True or "control.max_line" not in reply["result"].get("changed", []):
            self.failures.append(f"reload to max_line {max_line} answered {reply}")

    def costs(self, shape_lines, repeat):
        return {name: line_cost(self.sock, self.daemon.pid, self.task, line, repeat) for name, line in shape_lines.items()}

    def snapshots(self):
        """Phase e: bursts of snapshots from clients that leave at once."""
        start = time.monotonic()
        cpu0 = thread_ms(self.daemon.pid, self.task)
        t0, f0, _ = frames(self.sock)
        child, pipe = self.spawn(snapshot_bursts, self.sock, start + 0.05)
        time.sleep(max(0, start + BURSTS - time.monotonic()))
        t1, f1, _ = frames(self.sock)
        cpu1 = thread_ms(self.daemon.pid, self.task)
        sent = pipe.recv() if pipe.poll(10) else 0
        child.join(1)
        fps = (f1 - f0) / (t1 - t0)
        control = None if cpu0 is None or cpu1 is None else (cpu1 - cpu0) / (t1 - t0) / 10
        self.phases.append(("e snapshots, clients gone", start + RAMP_S, start + BURSTS, sent, control, fps))
        # The operator's own snapshot, right after the last burst.
        started = time.monotonic()
        try:
            reply = request(self.sock, '{"cmd":"snapshot"}', timeout=SNAPSHOT_WAIT_S)
            took = time.monotonic() - started
            if reply.get("ok") is not True or not reply["result"].get("png"):
                self.failures.append(f"the operator's snapshot answered {str(reply)[:200]}")
        except (OSError, ValueError):
            took = None
        return sent, fps, took


def main():
    chakrad = sys.argv[1]
    work = tempfile.mkdtemp(prefix="chakra-adversary-")
    began = time.monotonic()
    run = Run(chakrad, work)
    pings, costs, snapshot, policy = [], {}, None, "?"
    try:
        run.wait_ready()
        reference = os.path.join(work, "reference.sock")
        _, ready = run.spawn(reference_server, reference)
        ready.recv()
        stop_here, stop_there = run.context.Pipe(duplex=False)
        pinger, results = run.spawn(ping_loop, run.sock, reference, stop_here, run.daemon.pid)
        try:
            run.phase("a idle", [], IDLE_S)
            small, large = shapes(DEFAULT_LINE), shapes(MAX_LINE)
            if run.alive("while idle"):
                run.phase(f"b get key x{CLIENTS}, 16 KiB", [get_key(DEFAULT_LINE)] * CLIENTS)
            if run.alive("in phase b"):
                costs[DEFAULT_LINE] = run.costs({"get key": get_key(DEFAULT_LINE), **small}, 3)
                run.phase(f"d shapes x{len(small)}, 16 KiB", list(small.values()))
            if run.alive("in phase d at 16 KiB"):
                run.set_max_line(MAX_LINE)
                run.phase(f"c get key x{CLIENTS}, 1 MiB", [get_key(MAX_LINE)] * CLIENTS)
            if run.alive("in phase c"):
                costs[MAX_LINE] = run.costs({"get key": get_key(MAX_LINE), **large}, 1)
                run.phase(f"d shapes x{len(large)}, 1 MiB", list(large.values()))
            if run.alive("in phase d at 1 MiB"):
                snapshot = run.snapshots()
                run.alive("in phase e")
        except (OSError, ValueError, KeyError) as error:
            if run.alive("during the test"):
                run.failures.append(f"chakrad stopped answering: {type(error).__name__}: {error}")
        stop_there.send("stop")
        if results.poll(PING_TIMEOUT_S + 5):
            policy, pings = results.recv()
        else:
            run.failures.append("the ping loop did not come back")
        pinger.join(2)
    finally:
        for child in run.children:
            if child.is_alive():
                child.kill()
        if run.daemon.poll() is None:
            asked = time.monotonic()
            run.daemon.send_signal(signal.SIGTERM)
            try:
                status = run.daemon.wait(5)
                run.ending = f"stopped {time.monotonic() - asked:.2f} s after SIGTERM (status {status})"
            except subprocess.TimeoutExpired:
                run.daemon.kill()
                run.daemon.wait()
                run.ending = "did not stop within 5 s of SIGTERM: killed"
        else:
            run.ending = f"exited by itself (status {run.daemon.returncode})"
            run.log.flush()
            run.log_tail = open(os.path.join(work, "chakrad.log"), errors="replace").read().splitlines()[-20:]
        shutil.rmtree(work, ignore_errors=True)
    report(run, pings, policy, costs, snapshot, time.monotonic() - began)


def size_name(size):
    return f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"


def report(run, pings, policy, costs, snapshot, seconds):
    failures = run.failures
    nan = float("nan")
    def ms(value):
        return "-" if value is None else f"{value:.2f}"
    print(f"adversary: {'phase':<26} {'pings':>5} {'median':>6} {'p99':>7} {'max':>7} {'ref max':>7} "
          f"{'own p99':>7} {'own max':>7} {'late':>5} {'requests':>8} {'control':>7} {'fps':>5}")
    machine = 0.0
    for name, start, end, answered, control, fps in run.phases:
        mine = [p for p in pings if start <= p[0] < end]
        times = [p[1] for p in mine if p[1] is not None]
        # The daemon's own share: its time less what its control thread
        # waited for a CPU meanwhile (the kernel's count; all of it when
        # the kernel keeps none).
        own = [p[1] - (p[5] or 0) for p in mine if p[1] is not None]
        lost = [p for p in mine if p[3] is not None]
        p99, top = percentile(times, 0.99), max(times, default=nan)
        own_p99, own_top = percentile(own, 0.99), max(own, default=nan)
        late = max((p[2] for p in mine), default=nan)
        base = max((p[4] for p in mine if p[4] is not None), default=nan)
        machine = max(machine, base)
        print(f"adversary: {name:<26} {len(mine):>5} {statistics.median(times) if times else nan:>6.2f} "
              f"{p99:>7.2f} {top:>7.2f} {base:>7.2f} {own_p99:>7.2f} {own_top:>7.2f} {late:>5.2f} "
              f"{'-' if answered is None else answered:>8} {'-' if control is None else f'{control:.0f} %':>7} "
              f"{fps:>5.1f}")
        if lost:
            failures.append(f"{name}: {len(lost)} of {len(mine)} pings not answered ({lost[0][3]})")
        if not times:
            failures.append(f"{name}: no ping answered")
        elif own_p99 >= PING_LIMIT_MS or own_top >= PING_LIMIT_MS:
            failures.append(f"{name}: pings took p99 {p99:.1f} ms, max {top:.1f} ms; less the wait for a CPU "
                            f"of the threads on its path, p99 {own_p99:.1f} ms, max {own_top:.1f} ms (limit {PING_LIMIT_MS:.0f})")
    print(f"adversary: pings in ms, a fresh connection each, every 50 ms, from a process of their own at {policy}; "
          "ref: a server that only answers (normal priority), pinged at the same moment: the machine's share; "
          "own: a ping's time less the wait for a CPU of the daemon's threads on its path (control, long lines) "
          "meanwhile (the daemon's share, checked); "
          "late: the most the ping loop "
          "woke after its time (the harness's share); requests: the adversaries' answered (e: snapshot "
          "requests sent); control: the control thread's CPU, % of a core")
    if machine >= PING_LIMIT_MS:
        print(f"adversary: note: the machine held the reference server for up to {machine:.0f} ms: "
              "that much of a ping is not the daemon's")
    if costs:
        sizes = sorted(costs)
        print("adversary: control-thread CPU per request, ms (one request at a time):")
        print(f"adversary:   {'line':<18}" + "".join(f"{size_name(size):>10}" for size in sizes))
        for name in costs[sizes[0]]:
            print(f"adversary:   {name:<18}" + "".join(f"{ms(costs[size].get(name)):>10}" for size in sizes))
        for size in sizes:
            limit = COST_LIMIT_MS[size]
            for name, cost in costs[size].items():
                if cost is not None and cost > limit:
                    failures.append(f"a {size_name(size)} '{name}' line cost the control thread {cost:.2f} ms "
                                    f"(limit {limit:g} ms): work that should have been done aside")
    if snapshot and run.phases:
        sent, fps, took = snapshot
        idle_fps = run.phases[0][5]
        drop = 1 - fps / idle_fps if idle_fps else 0
        print(f"adversary: e: {sent} snapshot requests from clients gone at once ({BURSTS} bursts of {BURST}); "
              f"frame rate {idle_fps:.1f} idle, {fps:.1f} under them ({-drop:+.0%}); the operator's snapshot "
              + (f"{took:.2f} s" if took is not None else f"not answered within {SNAPSHOT_WAIT_S:.0f} s"))
        if drop > FPS_DROP:
            failures.append(f"frame rate {fps:.1f} under the snapshot bursts, {drop:.0%} below idle {idle_fps:.1f} "
                            f"(limit {FPS_DROP:.0%})")
        if took is None or took > SNAPSHOT_LIMIT_S:
            failures.append("the operator's snapshot after the bursts took "
                            + (f"{took:.2f} s" if took is not None else f"over {SNAPSHOT_WAIT_S:.0f} s (no answer)")
                            + f" (limit {SNAPSHOT_LIMIT_S:.0f} s)")
    for line in run.log_tail:
        print("chakrad.log: " + line)
    print(f"adversary: chakrad {run.ending}; {seconds:.0f} s in all")
    if failures:
        for failure in failures:
            print("FAIL: " + failure)
        sys.exit(1)
    print("adversary: ok")


if __name__ == "__main__":
    main()
