#!/usr/bin/env python3
"""SIGKILL while session records are written: nothing announced is lost,
nothing written is corrupt, nothing earlier changes.

Runs the given chakrad on the headless output with the spiral on screen,
a 4 s hold (a pattern of 2 s in, 2 s out), and its session log in a
temporary directory. Then, ROUNDS times (default 200, at most SECONDS in
all, default 100):
  - starts chakrad (after the first round, on the log the killed one left)
    and subscribes to session_finished;
  - plays exercises through the control socket's `touch`, as a finger
    would: most begun, traced a little and cancelled (a record each, some
    30 ms apart), every fortieth round one traced to the end first
    (held 4 s, completed);
  - kills it with SIGKILL at a random moment (uniform over 0.03-0.25 s of
    exercises, so kills fall before, between and during the appends);
  - reads the log with this script's own reader of the format (not
    chakrad's), checking:
      * every line but a torn last one is a whole v1 record whose CRC-32
        matches (none corrupt, none changed);
      * the records before the round are the same bytes at the same
        place: append-only, nothing earlier rewritten;
      * every record chakrad announced (session_finished, recorded true)
        is in the file, in order; the file holds no more records than
        exercises ended in the round.
At the next start chakrad cuts a torn tail off (checked: the file is then
whole records). At the end `stats` must count exactly the records the file
holds, and the last chakrad stops with SIGTERM (exit 0).

    tests/faults/sessions.py path/to/chakrad [rounds] [seconds]

A kill cannot tear a write(2) (the kernel finishes a write to the page
cache before the process dies), so this proves the daemon's side: one
write per record, announced only after fdatasync, appends after a restart
on a line of their own. A power cut's torn tail is proved by the unit
tests, which cut the file at every byte of its last record
(SessionLogTests).
"""
import json, math, os, random, re, signal, socket, subprocess, sys, tempfile, threading, time, zlib

CONFIG = """[display]
output = "headless"
vt = "none"
backlight = "none"
cec = "none"
fps = 30
[scene]
default = "spiral"
[spiral]
pattern = "quick"
hold_duration = 4.0
completion_delay = 0.2
rotations = 1.0
[spiral.patterns.quick]
phases = [ {{ kind = "in", seconds = 2 }}, {{ kind = "out", seconds = 2 }} ]
[sessions]
file = "{log}"
# No compaction in this test: the checks hold the file append-only.
max_size = 67108864
[control]
socket = "{sock}"
"""

LINE = re.compile(rb"^(v1 start=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z duration=\d+\.\d{3} outcome=(completed|abandoned) "
                  rb"ending=[a-z_]+ pattern=[A-Za-z0-9._-]+ furthest=[a-z]+ breathed=\d+\.\d{3} hold=\d+\.\d{3} lifts=\d+) "
                  rb"crc32=([0-9a-f]{8})\n$")


def read_log(path):
    """(whole records as bytes lines, torn tail bytes, corrupt lines)."""
    data = open(path, "rb").read() if os.path.exists(path) else b""
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: b"" for a whole file
    records, corrupt = [], []
    for raw in lines:
        line = raw + b"\n"
        match = LINE.match(line)
        if match and int(match.group(3), 16) == zlib.crc32(match.group(1)):
            records.append(line)
        else:
            corrupt.append(line)
    return records, tail, corrupt


class Client:
    """One control connection: requests, and the events between replies."""

    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(10)
        self.socket.connect(path)
        self.file = self.socket.makefile("rwb")
        self.events = []

    def call(self, **request):
        self.file.write((json.dumps(request) + "\n").encode())
        self.file.flush()
        while True:
            line = self.file.readline()
            if not line:
                raise ConnectionError("chakrad closed the connection")
            message = json.loads(line)
            if "event" in message:
                self.events.append(message)
            else:
                if not message.get("ok"):
                    raise RuntimeError(f"{request}: {message}")
                return message["result"]

    def close(self):
        try:
            self.socket.close()
        except OSError:
            pass


def connect(path, process, deadline):
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"chakrad exited with {process.returncode}")
        try:
            client = Client(path)
            client.call(cmd="ping")
            return client
        except (OSError, ConnectionError, ValueError):
            time.sleep(0.01)
    raise RuntimeError("chakrad did not answer in time")


def path_of(client):
    points = client.call(cmd="spiral", action="path")["points"]
    lengths = [0.0]
    for a, b in zip(points, points[1:]):
        lengths.append(lengths[-1] + math.dist(a, b))
    half = next(i for i, length in enumerate(lengths) if length >= lengths[-1] / 2)
    return points, half


def play(client, points, half, complete, stop):
    """Exercises until `stop` is set or the connection dies: the number
    of exercises ended (each a record to be)."""
    ended = 0
    while not stop.is_set():
        client.call(cmd="touch", phase="down", x=points[0][0], y=points[0][1])
        if complete:
            for p in points[1:half + 1:3] + [points[half]]:
                client.call(cmd="touch", phase="move", x=p[0], y=p[1])
            deadline = time.monotonic() + 10
            while client.call(cmd="spiral", action="path")["state"] == "hold" and time.monotonic() < deadline:
                time.sleep(0.05)
            for p in points[half::3] + [points[-1]]:
                client.call(cmd="touch", phase="move", x=p[0], y=p[1])
            client.call(cmd="touch", phase="up")
            ended += 1
            complete = False
            time.sleep(0.3)  # the celebration, back to Idle
            continue
        for p in points[1:12:2]:
            client.call(cmd="touch", phase="move", x=p[0], y=p[1])
        client.call(cmd="touch", phase="up")
        client.call(cmd="spiral", action="cancel")
        ended += 1
        time.sleep(0.01)  # some 30 a round: the file stays small
    return ended


def main():
    binary = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    budget = float(sys.argv[3]) if len(sys.argv) > 3 else 100
    rng = random.Random(20261126)
    failures = []
    work = tempfile.mkdtemp(prefix="chakra-sessions-")
    log, sock, config = f"{work}/state/sessions.log", f"{work}/control.sock", f"{work}/chakra.toml"
    open(config, "w").write(CONFIG.format(log=log, sock=sock))
    started = time.monotonic()
    before = []          # whole records after the last round's recovery
    announced_total = completed_total = kills_in_tail = 0
    done = 0
    process = None
    for number in range(1, rounds + 1):
        if time.monotonic() - started > budget:
            break
        output = open(f"{work}/chakrad-{number % 2}.log", "w")
        process = subprocess.Popen([binary, "run", "--config", config, "--headless-size", "320x240"],
                                   stdout=output, stderr=subprocess.STDOUT)
        try:
            client = connect(sock, process, time.monotonic() + 10)
        except RuntimeError as error:
            failures.append(f"round {number}: {error}")
            process.kill()
            break
        # The killed daemon's torn tail (if any) is cut at open: whole
        # records only, the same ones as before.
        records, tail, corrupt = read_log(log)
        if tail or corrupt:
            failures.append(f"round {number}: after the restart the log still has a torn tail or a bad line ({tail[:60]!r}, {corrupt[:1]})")
        if records != before:
            failures.append(f"round {number}: the restart changed the records ({len(before)} → {len(records)})")
        before = records
        client.call(cmd="subscribe", events=["session_finished"])
        points, half = path_of(client)
        complete = number % 40 == 1
        stop = threading.Event()
        result = {}

        def driver():
            try:
                result["ended"] = play(client, points, half, complete, stop)
            except (OSError, ConnectionError, ValueError, RuntimeError) as error:
                result["error"] = error

        thread = threading.Thread(target=driver)
        thread.start()
        time.sleep((4.8 if complete else 0) + rng.uniform(0.03, 0.25))
        process.send_signal(signal.SIGKILL)
        process.wait()
        stop.set()
        thread.join(15)
        client.close()
        announced = [e for e in client.events if e.get("event") == "session_finished" and e.get("recorded")]
        announced_total += len(announced)
        completed_total += sum(1 for e in announced if e["outcome"] == "completed")

        records, tail, corrupt = read_log(log)
        if tail:
            kills_in_tail += 1
        if corrupt:
            failures.append(f"round {number}: {len(corrupt)} corrupt line(s): {corrupt[0][:120]!r}")
        if records[:len(before)] != before:
            failures.append(f"round {number}: records written before this round changed")
        new = records[len(before):]
        if len(new) < len(announced):
            failures.append(f"round {number}: {len(announced)} records announced, {len(new)} in the file")
        # Each announced one is there, in order (matched on its fields).
        for event, line in zip(announced, new):
            fields = dict(item.split("=", 1) for item in line.decode().split()[1:])
            if (fields["outcome"], fields["ending"], fields["pattern"]) != (event["outcome"], event["ending"], event["pattern"]):
                failures.append(f"round {number}: announced {event} but the file has {line!r}")
                break
        ended = result.get("ended")
        if ended is not None and len(new) > ended + 1:
            failures.append(f"round {number}: {len(new)} new records for {ended} exercises ended")
        before = records
        done = number
        if len(failures) > 5:
            break

    # The last word: a clean start on the log, stats against the file, SIGTERM.
    process = subprocess.Popen([binary, "run", "--config", config, "--headless-size", "320x240"],
                               stdout=open(f"{work}/chakrad-last.log", "w"), stderr=subprocess.STDOUT)
    try:
        client = connect(sock, process, time.monotonic() + 10)
        deadline = time.monotonic() + 10
        while True:
            try:
                stats = client.call(cmd="stats")
                break
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        records, tail, corrupt = read_log(log)
        total = stats["total"]
        if total["started"] != len(records) or stats["damaged"] != 0:
            failures.append(f"stats counts {total['started']} sessions ({stats['damaged']} damaged), the file holds {len(records)}")
        if total["completed"] != sum(1 for line in records if b" outcome=completed " in line):
            failures.append(f"stats counts {total['completed']} completed, the file has another number")
        client.close()
    except (RuntimeError, OSError, ConnectionError) as error:
        failures.append(f"the last start: {error}")
    process.send_signal(signal.SIGTERM)
    try:
        status = process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        status = "hung"
    if status != 0:
        failures.append(f"SIGTERM: exit status {status}")

    records, _, _ = read_log(log)
    print(f"session records under SIGKILL: {done} rounds in {time.monotonic() - started:.0f} s, {len(records)} records "
          f"({completed_total} completed), {announced_total} announced and all found, {kills_in_tail} kills left a torn tail")
    for failure in failures:
        print(f"FAIL: {failure}")
    if not failures:
        subprocess.run(["rm", "-rf", work])
    else:
        print(f"(kept {work})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
