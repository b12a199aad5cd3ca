#!/usr/bin/env python3
"""Guest half of 48-splash-takeover: chakrad taking the screen over from a
boot splash (docs/seams.md, Boot), on bochs-drm, without systemd.

This script plays Plymouth after `plymouth deactivate`: it opens
/dev/dri/card0, shows a known picture on the connector's CRTC (a dumb
buffer, bands of colour none of chakrad's scenes draw), puts tty1 in
graphics mode, drops DRM master and keeps its descriptor (and so its
framebuffer) open. Then chakrad starts fresh (nothing passed) on the same
screen, the heart pinned at 2.5 s and [scene] transition_duration = 5, and
the screen is dumped (QMP, by the host) as fast as the harness answers,
from just before chakrad's first frame until its fade has ended:
RUN-NNN.ppm in $CHAKRA_RESULTS. Two runs: `fade` (as chakrad starts) and
`cut` (--fade-in off: the host's analysis must tell the two apart).
The host compares every frame with the splash and the heart
(splash_frames.py). Here: chakrad's log says what it did.
Prints ok:/FAIL: lines; exit status 1 when a check failed."""
import ctypes, fcntl, json, mmap, os, signal, subprocess, time

from guest_checks import RESULTS, check, finish, log_text, wait_log

CHAKRAD = os.environ["CHAKRAD"]
VM = os.path.join(RESULTS, ".vm")
KDSETMODE, KD_TEXT, KD_GRAPHICS = 0x4B3A, 0, 1
MAX_DUMPS = 300
DUMP_HZ = 8


def screendump(name):
    """One QMP screendump through the host's watcher (tests/vm/guest/
    request.sh's protocol, without a process per frame: each exec costs
    tens of milliseconds under TCG)."""
    request_id = "%d-%d" % (time.monotonic_ns(), os.getpid())
    path = os.path.join(VM, "requests", request_id)
    with open(path + ".tmp", "w") as f:
        f.write(json.dumps({"screendump": name}) + "\n")
    os.rename(path + ".tmp", path + ".json")
    reply = os.path.join(VM, "replies", request_id)
    deadline = time.monotonic() + 60
    while not os.path.exists(reply):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    with open(reply) as f:
        ok = f.readline().strip() == "ok"
    os.unlink(reply)
    return ok


class Resources(ctypes.Structure):
    _fields_ = [("count_fbs", ctypes.c_int), ("fbs", ctypes.POINTER(ctypes.c_uint32)),
                ("count_crtcs", ctypes.c_int), ("crtcs", ctypes.POINTER(ctypes.c_uint32)),
                ("count_connectors", ctypes.c_int), ("connectors", ctypes.POINTER(ctypes.c_uint32)),
                ("count_encoders", ctypes.c_int), ("encoders", ctypes.POINTER(ctypes.c_uint32)),
                ("min_width", ctypes.c_uint32), ("max_width", ctypes.c_uint32),
                ("min_height", ctypes.c_uint32), ("max_height", ctypes.c_uint32)]


class ModeInfo(ctypes.Structure):
    _fields_ = [("clock", ctypes.c_uint32)] + [(n, ctypes.c_uint16) for n in
               ("hdisplay", "hsync_start", "hsync_end", "htotal", "hskew",
                "vdisplay", "vsync_start", "vsync_end", "vtotal", "vscan")] + \
               [("vrefresh", ctypes.c_uint32), ("flags", ctypes.c_uint32), ("type", ctypes.c_uint32), ("name", ctypes.c_char * 32)]


class Connector(ctypes.Structure):
    _fields_ = [("connector_id", ctypes.c_uint32), ("encoder_id", ctypes.c_uint32), ("connector_type", ctypes.c_uint32),
                ("connector_type_id", ctypes.c_uint32), ("connection", ctypes.c_int), ("mmWidth", ctypes.c_uint32),
                ("mmHeight", ctypes.c_uint32), ("subpixel", ctypes.c_int), ("count_modes", ctypes.c_int),
                ("modes", ctypes.POINTER(ModeInfo))]   # the rest unread


def splash_row(width, band):
    """Row bytes (XRGB8888) of band `band`: red rising left to right, green
    by band, blue high; nowhere black, nothing like console text."""
    row = bytearray(width * 4)
    for x in range(width):
        row[4 * x:4 * x + 4] = bytes((200, 40 + 24 * band, 255 * x // (width - 1), 0))
    return bytes(row)


class Splash:
    """The splash's DRM client: the picture up, master dropped, the
    descriptor (and so the framebuffer) kept until close()."""

    def __init__(self):
        lib = ctypes.CDLL("libdrm.so.2", use_errno=True)
        lib.drmModeGetResources.restype = ctypes.POINTER(Resources)
        lib.drmModeGetConnector.restype = ctypes.POINTER(Connector)
        lib.drmModeGetConnector.argtypes = [ctypes.c_int, ctypes.c_uint32]
        self.lib = lib
        self.fd = os.open("/dev/dri/card0", os.O_RDWR | os.O_CLOEXEC)
        res = lib.drmModeGetResources(self.fd).contents
        connector = None
        for i in range(res.count_connectors):
            c = lib.drmModeGetConnector(self.fd, res.connectors[i]).contents
            if c.connection == 1 and c.count_modes > 0:
                connector = c
                break
        assert connector is not None, "no connected connector"
        # The preferred mode (DRM_MODE_TYPE_PREFERRED), which chakrad
        # chooses too: a splash of another size is not faded from.
        modes = [connector.modes[i] for i in range(connector.count_modes)]
        mode = next((m for m in modes if m.type & 8), modes[0])
        self.width, self.height = mode.hdisplay, mode.vdisplay
        handle, pitch, size = ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_uint64()
        assert lib.drmModeCreateDumbBuffer(self.fd, self.width, self.height, 32, 0, ctypes.byref(handle),
                                           ctypes.byref(pitch), ctypes.byref(size)) == 0, "create dumb"
        offset = ctypes.c_uint64()
        assert lib.drmModeMapDumbBuffer(self.fd, handle, ctypes.byref(offset)) == 0, "map dumb"
        memory = mmap.mmap(self.fd, size.value, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=offset.value)
        rows = [splash_row(self.width, band) for band in range(8)]
        for y in range(self.height):
            memory[y * pitch.value:y * pitch.value + self.width * 4] = rows[8 * y // self.height]
        memory.close()
        fb = ctypes.c_uint32()
        assert lib.drmModeAddFB(self.fd, self.width, self.height, 24, 32, pitch, handle, ctypes.byref(fb)) == 0, "addfb"
        self.framebuffer = fb.value
        conn_id = ctypes.c_uint32(connector.connector_id)
        crtc = res.crtcs[0]
        assert lib.drmModeSetCrtc(self.fd, crtc, fb, 0, 0, ctypes.byref(conn_id), 1, ctypes.byref(mode)) == 0, \
            "setcrtc: %s" % os.strerror(ctypes.get_errno())
        # As Plymouth: tty1 in graphics (the console draws nothing), and
        # `plymouth deactivate`: master dropped, the picture left up.
        self.tty = os.open("/dev/tty1", os.O_RDWR | os.O_NOCTTY)
        fcntl.ioctl(self.tty, KDSETMODE, KD_GRAPHICS)
        assert lib.drmDropMaster(self.fd) == 0, "dropmaster"

    def close(self):
        fcntl.ioctl(self.tty, KDSETMODE, KD_TEXT)
        os.close(self.tty)
        os.close(self.fd)


def run(name, fade_in, config):
    splash = Splash()
    print("%s: splash framebuffer %d, %dx%d" % (name, splash.framebuffer, splash.width, splash.height), flush=True)
    check("%s: the splash on screen" % name, screendump(name + "-splash.ppm"))
    args = [CHAKRAD, "run", "--output", "drm", "--vt", "1", "--pin-time", "2.5", "--socket", "none",
            "--config", config, "--fade-in", fade_in]
    log = open(os.path.join(RESULTS, name + ".log"), "w")
    daemon = subprocess.Popen(args, stdin=open("/dev/tty1"), stdout=log, stderr=subprocess.STDOUT)
    # chakrad says what it does with the picture on screen just before its
    # first frame: the dumps begin there (the splash alone before it).
    check("%s: chakrad decided about the picture on screen" % name, wait_log(name, "start: ", 120, interval=0.02))
    done = "scene: crossfade to heart done" if fade_in == "auto" else "first frame on screen"
    dumps, after = 0, None
    while dumps < MAX_DUMPS and (after is None or after > 0):
        # Paced: as many as the harness answers, up to DUMP_HZ (each dump
        # is 3 MB on the host until the analysis).
        next_dump = time.monotonic() + 1 / DUMP_HZ
        screendump("%s-%03d.ppm" % (name, dumps))
        dumps += 1
        time.sleep(max(0.0, next_dump - time.monotonic()))
        if after is not None:
            after -= 1
        elif done in log_text(name):
            after = 3   # the scene alone after the end, a few times
    print("%s: %d screendumps" % (name, dumps), flush=True)
    check("%s: the end seen (%s)" % (name, done), after == 0)
    text = log_text(name)
    if fade_in == "auto":
        check("%s: chakrad faded from the framebuffer on screen" % name,
              "start: fading in from the picture on screen (framebuffer %d, XRGB8888 %dx%d)"
              % (splash.framebuffer, splash.width, splash.height) in text)
    else:
        check("%s: chakrad cut in, as told" % name, "start: no fade from the picture on screen: --fade-in off" in text)
    daemon.send_signal(signal.SIGTERM)
    check("%s: SIGTERM → exit 0" % name, daemon.wait(60) == 0)
    splash.close()


config = os.path.join(RESULTS, "splash.toml")
with open(config, "w") as f:
    # A 5 s spring (settled in about 4.5 s): under TCG a frame of the
    # heart can take a second to draw, and the fade follows the clock, so
    # a kiosk's 0.5 s would be over in one or two frames.
    f.write("[scene]\ntransition_duration = 5.0\n")
run("fade", "auto", config)
run("cut", "off", config)
finish("splash")
