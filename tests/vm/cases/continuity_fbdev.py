#!/usr/bin/env python3
"""Guest half of 49-continuity-fbdev: chakrad's framebuffer hand-over across
a restart (docs/seams.md), without systemd; fd_store.py plays systemd's
file descriptor store as for 47-continuity-drm.

1. /dev/fb0 (bochs-drm's fbdev emulation) on tty1, the heart pinned at
   2.5 s: the first process stores `fb`; SIGTERM leaves its picture and
   tty1 in KD_GRAPHICS; the second takes the framebuffer over without
   setting the screen info (`restarted`); SIGKILL; the third does the same;
   the store is closed (a stop for good), and the picture stays (nothing in
   the kernel gives the console back on fbdev) until tty1 is reset to
   KD_TEXT as getty@tty1's TTYReset= does (systemd's reset_terminal_fd):
   the console is back. Screendumps (QMP, by the host) to $CHAKRA_RESULTS:
   first, between, second, killed, third, closed, console-after.
2. vfb (a framebuffer that pans and changes depth; not on screen), when the
   kernel has it: the ioctls of each process traced (strace -D keeps the
   pid the store's shim gave it): the first enlarges the virtual height for
   two pages (FBIOPUT_VSCREENINFO), SIGTERM leaves the screen info and the
   page on screen as they were (vfb-between.png, read back from the
   device); the second sets nothing; a third asking for another format
   (--format BGR565) sets it and says why in its status.
Prints ok:/FAIL: lines; exit status 1 when a check failed."""
import array, fcntl, os, signal, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import display_tools
from fd_store import DescriptorStore
from guest_checks import RESULTS, check, finish, log_text, wait_log, wait_until

CHAKRAD, CHAKRACTL = os.environ["CHAKRAD"], os.environ["CHAKRACTL"]
SCREENDUMP = os.path.join(os.environ["CHAKRA_REPO"], "tests/vm/guest/screendump")
KDGETMODE, KDSETMODE, KD_TEXT, KD_GRAPHICS = 0x4B3B, 0x4B3A, 0, 1
KEPT = "fbdev: handed over by the last process: the screen info is as this process would set it"
store = DescriptorStore()


def start(name, device, socket_path, *options, traced=False, tty=True):
    """chakrad on DEVICE as the store's next process; the first frame waited for."""
    command = [CHAKRAD, "run", "--output", "fbdev", "--device", device, "--pin-time", "2.5", "--socket", socket_path]
    command += ["--vt", "1"] if tty else ["--vt", "none"]
    if traced:
        # -D: strace runs as a grandchild, chakrad keeps the shim's pid
        # ($LISTEN_PID); only ioctls, so the loop is barely slowed.
        command = ["strace", "-D", "-e", "trace=ioctl", "-o", os.path.join(RESULTS, name + ".strace")] + command
    log = open(os.path.join(RESULTS, name + ".log"), "w")
    p = store.start(command + list(options), stdin=open("/dev/tty1") if tty else subprocess.DEVNULL,
                    stdout=log, stderr=subprocess.STDOUT)
    check("%s: first frame on screen" % name, wait_log(name, "first frame on screen", 90))
    return p


def status(socket_path):
    r = subprocess.run([CHAKRACTL, "--socket", socket_path, "status"], capture_output=True, text=True, timeout=60)
    return r.stdout


def started(socket_path):
    """The status's `started` row."""
    return next((l.split(None, 1)[1] for l in status(socket_path).splitlines() if l.startswith("started ")), "")


def screendump(name):
    # DRM's fbdev emulation copies what was drawn to the screen from a
    # worker, at most 50 ms later (its deferred I/O delay).
    time.sleep(0.3)
    subprocess.run([SCREENDUMP, name + ".png"], check=False, stdout=subprocess.DEVNULL)


def kd_mode():
    fd = os.open("/dev/tty1", os.O_RDONLY | os.O_NOCTTY)
    try:
        mode = array.array("i", [0])
        fcntl.ioctl(fd, KDGETMODE, mode)
        return mode[0]
    finally:
        os.close(fd)


def stop(p, name, how=signal.SIGTERM):
    p.send_signal(how)
    code = p.wait(30)
    if how == signal.SIGTERM:
        check("%s: SIGTERM → exit 0 (%s)" % (name, code), code == 0)
        check("%s: left its picture" % name, "fbdev: the picture stays on screen for the next process" in log_text(name))


def fbputs(name):
    """FBIOPUT_VSCREENINFO calls in NAME's ioctl trace, once strace wrote
    the process's end."""
    path = os.path.join(RESULTS, name + ".strace")
    wait_until(lambda: "+++ " in open(path).read(), 30)
    with open(path) as f:
        return sum(1 for line in f if "FBIOPUT_VSCREENINFO" in line)


def screen_info(device):
    v, _, _ = display_tools.fb_info(device)
    return {k: v[k] for k in ("xres", "yres", "xres_virtual", "yres_virtual", "xoffset", "yoffset", "bits_per_pixel")}


def on_screen():
    """Phase 1: fb0 on tty1, screendumps."""
    sock = "/run/chakra-continuity.sock"
    first = start("first", "/dev/fb0", sock)
    check("first: stores state, fb and control (%s)" % store.names(),
          wait_until(lambda: {"state", "fb", "control"} <= set(store.names()), 10))
    check("first: started fresh", started(sock) == "fresh")
    screendump("first")
    stop(first, "first")
    check("first: left tty1 in graphics mode", "left in graphics mode for the next process" in log_text("first"))
    check("between: tty1 in KD_GRAPHICS", kd_mode() == KD_GRAPHICS)
    screendump("between")

    second = start("second", "/dev/fb0", sock)
    check("second: kept the picture without setting the screen info", KEPT in log_text("second"))
    check("second: status says restarted", started(sock) == "restarted")
    screendump("second")
    stop(second, "second", signal.SIGKILL)
    check("killed: tty1 in KD_GRAPHICS", kd_mode() == KD_GRAPHICS)
    screendump("killed")

    third = start("third", "/dev/fb0", sock)
    check("third: kept the picture after a crash", KEPT in log_text("third"))
    check("third: status says restarted", started(sock) == "restarted")
    screendump("third")
    stop(third, "third")

    # A stop for good: systemd closes its copies. Nothing in the kernel
    # gives the console back on fbdev (the picture stays, tty1 in graphics)
    # until getty@tty1 starts, whose TTYReset= puts tty1 in KD_TEXT.
    store.flush()
    check("closed: tty1 still in KD_GRAPHICS", kd_mode() == KD_GRAPHICS)
    screendump("closed")
    fd = os.open("/dev/tty1", os.O_RDWR | os.O_NOCTTY)
    try:
        fcntl.ioctl(fd, KDSETMODE, KD_TEXT)
    finally:
        os.close(fd)
    check("reset: tty1 in KD_TEXT", kd_mode() == KD_TEXT)
    time.sleep(0.5)
    screendump("console-after")


def virtual_framebuffer():
    """Phase 2: vfb, the ioctls traced."""
    if subprocess.run(["modprobe", "vfb", "vfb_enable=1", "videomemorysize=%d" % (640 * 480 * 4 * 2),
                       "mode_option=640x480-32@60"]).returncode != 0:
        print("skipped: no vfb module (the screen-info checks)")
        return
    device = ""

    def found():
        nonlocal device
        for node in sorted(os.listdir("/sys/class/graphics")):
            try:
                with open("/sys/class/graphics/%s/name" % node) as f:
                    if f.read().strip() == "Virtual FB" and os.path.exists("/dev/" + node):
                        device = "/dev/" + node
                        return True
            except OSError:
                pass
        return False

    if not wait_until(found, 10):
        check("vfb: a framebuffer named 'Virtual FB' appeared", False)
        return
    sock = "/run/chakra-continuity-vfb.sock"
    before = screen_info(device)
    first = start("vfbfirst", device, sock, traced=True, tty=False)
    check("vfbfirst: two pages, panning", wait_log("vfbfirst", "two pages, panning"))
    check("vfbfirst: stores fb (%s)" % store.names(), wait_until(lambda: "fb" in store.names(), 10))
    shown = screen_info(device)
    check("vfbfirst: the virtual height enlarged (%d → %d)" % (before["yres_virtual"], shown["yres_virtual"]),
          shown["yres_virtual"] >= 2 * shown["yres"] > before["yres_virtual"])
    stop(first, "vfbfirst")
    check("vfbfirst: set the screen info (FBIOPUT_VSCREENINFO %d times: the check's own check)" % fbputs("vfbfirst"),
          fbputs("vfbfirst") > 0)
    after = screen_info(device)
    check("vfbfirst: SIGTERM left the screen info as it drew, panned to a page (%s)" % after,
          dict(after, yoffset=0) == dict(shown, yoffset=0) and after["yoffset"] in (0, after["yres"]))
    display_tools.fbgrab(device, os.path.join(RESULTS, "vfb-between.png"))

    second = start("vfbsecond", device, sock, traced=True, tty=False)
    check("vfbsecond: kept the picture", KEPT in log_text("vfbsecond"))
    check("vfbsecond: status says restarted", started(sock) == "restarted")
    stop(second, "vfbsecond")
    check("vfbsecond: set nothing (FBIOPUT_VSCREENINFO %d times)" % fbputs("vfbsecond"), fbputs("vfbsecond") == 0)

    third = start("vfbthird", device, sock, "--format", "BGR565", traced=True, tty=False)
    reason = "restarted-without-picture (the screen info was set: another pixel format (XBGR8888 shown, BGR565 asked))"
    said = started(sock)
    check("vfbthird: another format asked: set, and the status says why (%s)" % said, said == reason)
    stop(third, "vfbthird")
    check("vfbthird: set the screen info (FBIOPUT_VSCREENINFO %d times)" % fbputs("vfbthird"), fbputs("vfbthird") > 0)
    store.flush()


on_screen()
virtual_framebuffer()
finish("continuity")
