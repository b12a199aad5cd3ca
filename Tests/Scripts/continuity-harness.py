#!/usr/bin/env python3
"""chakrad's continuity across a restart, end to end on the headless output,
without systemd (docs/seams.md, "Tests"):

    Tests/Scripts/continuity-harness.py .build/debug/chakrad .build/debug/chakractl

This script plays systemd's file descriptor store: a datagram socket as
$NOTIFY_SOCKET that keeps FDSTORE=1 descriptors by FDNAME (one copy of a
file however often it is sent), honours FDSTOREREMOVE=1, and starts the next
chakrad with them at 3, 4, ... and $LISTEN_FDS/$LISTEN_FDNAMES, $LISTEN_PID
set to the child's own pid by a shell shim that execs chakrad. It checks:
the record follows `switch`, `set` and `display`; the control socket is
stored, stays at its path (same inode) and a client connecting between the
two processes is answered by the next one; after SIGTERM the next
process shows the same scene with the same settings and display mode, its
scene time continuing exactly over the gap (the two records' clocks agree
within 10 ms), and says `restarted-without-picture (no drm descriptor
passed)`; after SIGKILL the last record saved is continued; a damaged
record is a fresh start that says why; after a stop for good (the store
flushed) the next start is fresh and replaces the stale socket file. About 10 s; exit 0 and "OK" when
all hold."""
import array, os, signal, socket, subprocess, sys, tempfile, time

CHAKRAD, CTL = sys.argv[1], sys.argv[2]
WORK = tempfile.mkdtemp(prefix="chakra-continuity-")
SOCK = WORK + "/ctl.sock"
LOG = WORK + "/log"
store = []  # (name, fd)
notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
addr = WORK + "/notify"
try: os.unlink(addr)
except FileNotFoundError: pass
notify.bind(addr)
notify.setblocking(False)

def pump():
    while True:
        try:
            msg, anc, _, _ = notify.recvmsg(4096, socket.CMSG_SPACE(253 * 4))
        except BlockingIOError:
            return
        fields = dict(l.split("=", 1) for l in msg.decode().split("\n") if "=" in l)
        fds = []
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                a = array.array("i"); a.frombytes(data[:len(data) - len(data) % 4]); fds += list(a)
        if fields.get("FDSTORE") == "1":
            for fd in fds:
                st = os.fstat(fd)
                if any((os.fstat(f).st_dev, os.fstat(f).st_ino) == (st.st_dev, st.st_ino) for _, f in store):
                    os.close(fd)  # systemd keeps one copy of a file
                else:
                    store.append((fields.get("FDNAME", "stored"), fd))
            print("store:", fields.get("FDNAME"), [n for n, _ in store], flush=True)
        elif fields.get("FDSTOREREMOVE") == "1":
            for n, f in [e for e in store if e[0] == fields.get("FDNAME")]:
                os.close(f); store.remove((n, f))
            print("removed:", fields.get("FDNAME"), flush=True)
        else:
            for fd in fds: os.close(fd)

def start(extra_env=None):
    pump()
    names = [n for n, _ in store]
    fds = [f for _, f in store]
    env = dict(os.environ, NOTIFY_SOCKET=addr)
    env.pop("LISTEN_PID", None)
    if fds:
        env.update(LISTEN_FDS=str(len(fds)), LISTEN_FDNAMES=":".join(names))
    env.update(extra_env or {})
    def place():
        high = [os.dup(f) for f in fds]  # out of the way of 3, 4, ...
        for i, h in enumerate(high):
            os.dup2(h, 3 + i, inheritable=True)
    shim = ["sh", "-c", 'if [ -n "$LISTEN_FDS" ]; then export LISTEN_PID=$$; fi; exec "$0" "$@"']
    args = [CHAKRAD, "run", "--output", "headless", "--headless-size", "64x48", "--socket", SOCK, "--vt", "none", "--fps", "10"]
    q = subprocess.Popen(shim + args, env=env, preexec_fn=place, close_fds=False,
                            stdout=open(LOG, "a"), stderr=subprocess.STDOUT)
    procs.append(q)
    return q

def ctl(*a):
    for _ in range(100):
        r = subprocess.run([CTL, "--socket", SOCK, *a], capture_output=True, text=True)
        if r.returncode == 0: return r.stdout
        time.sleep(0.1)
    raise SystemExit("chakractl %s: %s" % (a, r.stderr))

def record():
    pump()
    fd = [f for n, f in store if n == "state"][0]
    return os.pread(fd, 4096, 0).decode()

def field(rec, key):
    return [l.split("=", 1)[1] for l in rec.splitlines() if l.startswith(key + "=")][0]

open(LOG, "w").close()
import atexit
procs = []
atexit.register(lambda: [q.kill() for q in procs if q.poll() is None])
p = start()
ctl("status")
print(ctl("status").splitlines()[-2:])
ctl("switch", "calm")
ctl("set", "reduce-motion", "on")
ctl("display", "off")
# The record is saved after each reply: wait for it (on a busy machine
# the save may come a while after the reply), not a fixed time.
def saved(rec):
    return field(rec, "scene") == "calm" and field(rec, "reduce-motion") == "yes" and field(rec, "display-mode") == "off"
deadline = time.monotonic() + 30
rec1 = record()
while not saved(rec1) and time.monotonic() < deadline:
    time.sleep(0.05)
    rec1 = record()
print(rec1)
assert saved(rec1), rec1
inode = os.stat(SOCK).st_ino
p.send_signal(signal.SIGTERM); p.wait()
pump()
assert "control" in [n for n, _ in store], "the control socket is in the store"
# A client during the restart: it waits in the stored socket's backlog and
# is answered by the next process.
waiting = subprocess.Popen([CTL, "--socket", SOCK, "status"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
time.sleep(0.5)
rec2 = record()
p = start()
out, err = waiting.communicate(timeout=30)
assert waiting.returncode == 0 and "calm" in out, (waiting.returncode, out, err)
assert os.stat(SOCK).st_ino == inode, "the same socket at the same path"
st = ctl("status"); print(st)
assert "calm" in st and "restarted-without-picture (no drm descriptor passed)" in st, st
rec3 = record(); print(rec3)
# the scene time went on from where it was
t_before, taken_before = float(field(rec2, "scene-time")), float(field(rec2, "taken"))
t_after, taken_after = float(field(rec3, "scene-time")), float(field(rec3, "taken"))
print("continuity: before %.3f s at %.3f, after %.3f s at %.3f" % (t_before, taken_before, t_after, taken_after))
assert abs((t_after - t_before) - (taken_after - taken_before)) < 0.01
# a crash (SIGKILL): the last record saved survives
ctl("display", "auto")
time.sleep(0.5)
p.send_signal(signal.SIGKILL); p.wait()
p = start()
st = ctl("status"); print(st)
assert "restarted-without-picture" in st
p.send_signal(signal.SIGTERM); p.wait()
# a damaged record: a clear log line and a fresh start
fd = [f for n, f in store if n == "state"][0]
os.pwrite(fd, b"X", 30)
p = start()
st = ctl("status"); print(st)
assert "restarted-without-picture (the state record is damaged" in st and "heart" in st, st
p.send_signal(signal.SIGTERM); p.wait()
# A stop for good: systemd flushes the store. The socket file left at the
# path is stale; the next start replaces it and starts fresh.
pump()
for _, f in store: os.close(f)
store.clear()
p = start()
st = ctl("status"); print(st)
assert "started        fresh" in st and "heart" in st, st
p.send_signal(signal.SIGTERM); p.wait()
assert "replaced the stale socket" in open(LOG).read()
print("OK (log: %s)" % LOG)
