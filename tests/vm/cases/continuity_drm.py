#!/usr/bin/env python3
"""Guest half of 47-continuity-drm: chakrad's DRM hand-over across a
restart, without systemd. fd_store.py plays systemd's file descriptor store
(as Tests/Scripts/continuity-harness.py does on the host): a datagram
socket as $NOTIFY_SOCKET keeps FDSTORE=1 descriptors by FDNAME, and each
next chakrad gets them at 3, 4, ... with $LISTEN_FDS/$LISTEN_FDNAMES and
$LISTEN_PID set to its own pid by a shell shim. chakrad runs on
/dev/dri/card0, tty1, the heart pinned at 2.5 s (so every picture of it is
the same). Screendumps (QMP, by the host) go to $CHAKRA_RESULTS:
first.png (the first process), between.png (after its SIGTERM, before the
next starts), second.png, killed.png (after SIGKILL of the second),
third.png, flushed.png (the store closed: a stop for good).
The kernel's log (drm.debug 0x10, cleared before each start) shows the
first process's modeset ("Set [MODE:...]", the check's own check) and none
for the second and the third. Prints ok:/FAIL: lines; exit status 1 when
a check failed."""
import os, signal, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fd_store import DescriptorStore
from guest_checks import RESULTS, check, finish, log_text, wait_log

CHAKRAD, CHAKRACTL = os.environ["CHAKRAD"], os.environ["CHAKRACTL"]
SCREENDUMP = os.path.join(os.environ["CHAKRA_REPO"], "tests/vm/guest/screendump")
SOCK = "/run/chakra-continuity.sock"
store = DescriptorStore()


def start(name):
    # --fade-in off: the first process's screendump is compared with the
    # heart at once, as before chakrad faded in from the console's picture
    # (48-splash-takeover's subject; a restart never fades: it flips).
    args = [CHAKRAD, "run", "--output", "drm", "--vt", "1", "--pin-time", "2.5", "--socket", SOCK, "--fade-in", "off"]
    log = open(os.path.join(RESULTS, name + ".log"), "w")
    p = store.start(args, stdin=open("/dev/tty1"), stdout=log, stderr=subprocess.STDOUT)
    p.name = name
    check("%s: first frame on screen" % name, wait_log(name, "first frame on screen", 90))
    return p


def status():
    r = subprocess.run([CHAKRACTL, "--socket", SOCK, "status"], capture_output=True, text=True, timeout=60)
    return r.stdout


def screendump(name):
    subprocess.run([SCREENDUMP, name + ".png"], check=False, stdout=subprocess.DEVNULL)


def kernel_log():
    return subprocess.run(["dmesg"], capture_output=True, text=True).stdout


def modesets(log):
    """Atomic commits that set a CRTC's mode (drm.debug's ATOMIC category:
    drm_atomic_set_mode_prop_for_crtc logs "Set [MODE:...]"): chakrad's
    modeset sets MODE_ID, a page flip only the plane's FB_ID."""
    return [l for l in log.splitlines() if "Set [MODE:" in l]


def clear_kernel_log():
    subprocess.run(["dmesg", "-C"], check=False)


# The kernel says when an atomic commit is a full modeset (drm.debug 0x10).
with open("/sys/module/drm/parameters/debug", "w") as f:
    f.write("0x10")
clear_kernel_log()
first = start("first")
check("first: the kernel's log shows its modeset (the check's own check)", len(modesets(kernel_log())) > 0)
time.sleep(1)
check("first: state and drm in the store (%s)" % store.names(), "state" in store.names() and "drm" in store.names())
check("first: started fresh", "started        fresh" in status())
screendump("first")
first.send_signal(signal.SIGTERM)
check("first: SIGTERM → exit 0", first.wait(30) == 0)
check("first: left its picture", "the picture stays on screen for the next process" in log_text("first"))
check("first: left tty1 in graphics mode", "left in graphics mode for the next process" in log_text("first"))
screendump("between")

clear_kernel_log()
second = start("second")
check("second: no modeset", "no modeset: the first frame flips onto the last process's" in log_text("second"))
check("second: a clean exit left nothing else", "released what earlier processes left" not in log_text("second"))
check("second: the last framebuffer removed after the first flip", wait_log("second", "removed the last process's framebuffer", 10))
st = status()
check("second: status says restarted (picture kept)", "started        restarted\n" in st)
seen = modesets(kernel_log())
check("second: no modeset in the kernel's log (%d)" % len(seen), not seen)
screendump("second")
second.send_signal(signal.SIGKILL)
second.wait(30)
time.sleep(0.5)
screendump("killed")

clear_kernel_log()
third = start("third")
check("third: no modeset after a crash", "no modeset" in log_text("third"))
seen = modesets(kernel_log())
check("third: no modeset in the kernel's log (%d)" % len(seen), not seen)
check("third: the crashed process's other buffer freed (1 framebuffer, 2 handles)",
      "released what earlier processes left: 1 framebuffers, 2 buffer handles" in log_text("third"))
check("third: the last framebuffer removed", wait_log("third", "removed the last process's framebuffer", 10))
screendump("third")
third.send_signal(signal.SIGTERM)
check("third: SIGTERM → exit 0", third.wait(30) == 0)

# A stop for good: systemd closes its copies; the kernel's lastclose gives
# the screen back to the console (fbdev emulation).
store.flush()
time.sleep(1)
screendump("flushed")
finish("continuity")
