#!/usr/bin/env python3
"""Small tools for the display cases (10-*.sh ... 50-*.sh), stdlib only.

Guest side:
  display_tools.py kdmode TTY              prints 0 (KD_TEXT) or 1 (KD_GRAPHICS)
  display_tools.py chvt N                  switches to VT N and waits for it
  display_tools.py notify-listen SOCKET OUT   an sd_notify receiver: appends
                                           each datagram to OUT, one line each
  display_tools.py wait-stats FILE KEY MIN SECONDS
                                           waits until FILE's KEY=value >= MIN
  display_tools.py fbvar DEVICE            one line from FBIOGET_VSCREENINFO and
                                           FBIOGET_FSCREENINFO: xres=.. yres=..
                                           xres_virtual=.. yres_virtual=..
                                           xoffset=.. yoffset=.. bpp=..
                                           line_length=.. smem_len=.. rgba=o/l,..
  display_tools.py fbvar-all DEVICE        every field of fb_var_screeninfo,
                                           name=value a line (compare before/after)
  display_tools.py fbdepth DEVICE BPP       FBIOPUT_VSCREENINFO with BPP bits per
                                           pixel and the driver's own bitfields
                                           (like fbset -depth)
  display_tools.py fbgrab DEVICE OUT       the visible page (xoffset, yoffset)
                                           read() from the device, decoded by
                                           the var bitfields, as PNG/PPM
  display_tools.py fbwatch DEVICE SECONDS INTERVAL STATS
                                           samples yoffset every INTERVAL s from
                                           one rewrite of the daemon's STATS file
                                           to the first rewrite SECONDS or more
                                           later; prints samples, changes, the
                                           values seen, the sequence, and the
                                           frames the daemon presented in that
                                           same window (frames=, window=)
  display_tools.py snapshot-stream SOCKET OUT STOPFILE
                                           one control connection asking for a
                                           snapshot every 0.2 s until STOPFILE
                                           exists: a line per reply in OUT,
                                           "EPOCH ok WIDTHxHEIGHT" or "EPOCH error
                                           CODE MESSAGE" ("EPOCH closed ..." if
                                           the connection ends); the last PNG in
                                           OUT.png. While STOPFILE.pause exists
                                           it asks nothing, the connection kept
                                           ("EPOCH paused", "EPOCH resumed")
  display_tools.py snapshot-summary LOG GONE BACK
                                           a snapshot-stream log against the
                                           display's unplug (GONE) and replug
                                           (BACK), epoch seconds: counts, and
                                           "verdict: ok" when there were images
                                           before, only no_frame refusals naming
                                           the disconnection in between, images
                                           after, and the connection held
  display_tools.py drm-power CARD         the power state as another DRM client
                                           reads it (libdrm through ctypes, atomic
                                           cap set): a line per CRTC ("crtc 37
                                           ACTIVE=0 mode_valid=1 fb=43"), connector
                                           ("connector 35 DPMS=Off crtc=37") and
                                           primary plane ("plane 31 fb=43 crtc=37"),
                                           then "active_crtcs=N"
  display_tools.py power-watch CARD SOCKET OUT STOPFILE
                                           the screen from both sides about once
                                           a second until STOPFILE exists, no
                                           process started per sample: a line in
                                           OUT "UPTIME crtc=N power=P reason=R
                                           spiral=S started=N recorded=N
                                           window=W summary=TEXT" (active CRTCs
                                           as drm-power counts them, the rest
                                           from the control socket's status;
                                           "-" for none, "?" when unanswered;
                                           UPTIME: when the sample began, by
                                           CLOCK_BOOTTIME, /proc/uptime's clock,
                                           which `date -s` does not move)
  display_tools.py drm-hold CARD STOPFILE  DRM master on CARD (SET_MASTER) until
                                           STOPFILE exists; prints "master" once
                                           held ("busy: ..." and exit 1 if not)
  display_tools.py fbblank DEVICE LEVEL    FBIOBLANK with LEVEL (0 unblank, 4
                                           powerdown): prints "ok" or the errno
  display_tools.py cpu-ticks PID           utime+stime of PID in clock ticks
Host side:
  display_tools.py rotate IN OUT DEGREES   turns an image clockwise (90/180/270)
  display_tools.py rate BEFORE AFTER       frames per second between two
                                           --stats-file snapshots
  display_tools.py lit IMAGE               prints how many pixels are not black
"""

import array
import fcntl
import functools
import os
import socket
import struct
import sys
import time

sys.dont_write_bytecode = True  # the guest sees the repository read-only
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

KDGETMODE = 0x4B3B     # linux/kd.h
VT_ACTIVATE = 0x5606   # linux/vt.h
VT_WAITACTIVE = 0x5607
FBIOGET_VSCREENINFO = 0x4600   # linux/fb.h
FBIOPUT_VSCREENINFO = 0x4601
FBIOGET_FSCREENINFO = 0x4602

# struct fb_var_screeninfo: 40 __u32 (the bitfields are offset, length, msb_right).
VAR_FIELDS = ("xres yres xres_virtual yres_virtual xoffset yoffset bits_per_pixel grayscale "
              "red.offset red.length red.msb_right green.offset green.length green.msb_right "
              "blue.offset blue.length blue.msb_right transp.offset transp.length transp.msb_right "
              "nonstd activate height width accel_flags pixclock left_margin right_margin "
              "upper_margin lower_margin hsync_len vsync_len sync vmode rotate colorspace "
              "reserved0 reserved1 reserved2 reserved3").split()


def kdmode(tty):
    fd = os.open(tty, os.O_RDONLY | os.O_NOCTTY)
    try:
        mode = array.array("i", [0])
        fcntl.ioctl(fd, KDGETMODE, mode)
        print(mode[0])
    finally:
        os.close(fd)


def chvt(number):
    fd = os.open("/dev/tty0", os.O_RDWR | os.O_NOCTTY)
    try:
        fcntl.ioctl(fd, VT_ACTIVATE, int(number))
        fcntl.ioctl(fd, VT_WAITACTIVE, int(number))
    finally:
        os.close(fd)


def notify_listen(path, out):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(path)
    with open(out, "a", buffering=1) as log:
        while True:
            data = receiver.recv(4096)
            log.write("%.3f %s\n" % (time.monotonic(), data.decode(errors="replace").replace("\n", " | ")))


def read_stats(path):
    values = {}
    try:
        with open(path) as file:
            for line in file:
                key, _, value = line.strip().partition("=")
                values[key] = value
    except FileNotFoundError:
        pass
    return values


def wait_stats(path, key, minimum, seconds):
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline:
        value = read_stats(path).get(key)
        if value is not None and float(value) >= float(minimum):
            return 0
        time.sleep(0.05)
    print(f"wait-stats: {key} did not reach {minimum} in {seconds}s: {read_stats(path)}", file=sys.stderr)
    return 1


def fb_info(device):
    """(var as a dict, fix line_length, fix smem_len) of a framebuffer."""
    fd = os.open(device, os.O_RDONLY)
    try:
        var = bytearray(160)
        fcntl.ioctl(fd, FBIOGET_VSCREENINFO, var)
        # struct fb_fix_screeninfo (x86-64): id[16], smem_start (8), smem_len,
        # type, type_aux, visual, xpanstep/ypanstep/ywrapstep (u16), 2 bytes
        # of padding, line_length, ...
        fix = bytearray(80)
        fcntl.ioctl(fd, FBIOGET_FSCREENINFO, fix)
    finally:
        os.close(fd)
    values = dict(zip(VAR_FIELDS, struct.unpack("=40I", var)))
    smem_len, line_length = struct.unpack_from("=I", fix, 24)[0], struct.unpack_from("=I", fix, 48)[0]
    return values, line_length, smem_len


def fbvar(device):
    v, line_length, smem_len = fb_info(device)
    rgba = ",".join("%d/%d" % (v[c + ".offset"], v[c + ".length"]) for c in ("red", "green", "blue", "transp"))
    print("xres=%d yres=%d xres_virtual=%d yres_virtual=%d xoffset=%d yoffset=%d bpp=%d line_length=%d smem_len=%d rgba=%s"
          % (v["xres"], v["yres"], v["xres_virtual"], v["yres_virtual"], v["xoffset"], v["yoffset"],
             v["bits_per_pixel"], line_length, smem_len, rgba))


def fbvar_all(device):
    values, _, _ = fb_info(device)
    for name in VAR_FIELDS:
        print("%s=%d" % (name, values[name]))


def fbdepth(device, bpp):
    fd = os.open(device, os.O_RDWR)
    try:
        var = bytearray(160)
        fcntl.ioctl(fd, FBIOGET_VSCREENINFO, var)
        values = list(struct.unpack("=40I", var))
        values[VAR_FIELDS.index("bits_per_pixel")] = int(bpp)
        for name in ("red", "green", "blue", "transp"):
            for part in (".offset", ".length", ".msb_right"):
                values[VAR_FIELDS.index(name + part)] = 0   # the driver's choice
        values[VAR_FIELDS.index("activate")] = 0   # FB_ACTIVATE_NOW
        var = bytearray(struct.pack("=40I", *values))
        fcntl.ioctl(fd, FBIOPUT_VSCREENINFO, var)
    finally:
        os.close(fd)
    fbvar(device)


def fbgrab(device, out):
    """The page on screen, read() from the device (not the mapping the
    daemon draws through), each channel decoded by the var bitfields and
    scaled to 8 bits (v * 255 / max, rounded)."""
    from images import write_image
    v, line_length, _ = fb_info(device)
    width, height, bpp = v["xres"], v["yres"], v["bits_per_pixel"]
    if bpp % 8 or any(v[c + ".msb_right"] for c in ("red", "green", "blue")):
        print(f"fbgrab: {bpp} bpp / msb_right bitfields are not supported", file=sys.stderr)
        return 2
    size = bpp // 8
    start = v["yoffset"] * line_length + v["xoffset"] * size
    data = bytearray()
    fd = os.open(device, os.O_RDONLY)
    try:
        while len(data) < height * line_length:
            chunk = os.pread(fd, height * line_length - len(data), start + len(data))
            if not chunk:
                print(f"fbgrab: short read at {start + len(data)}", file=sys.stderr)
                return 1
            data += chunk
    finally:
        os.close(fd)
    pixels = b"".join(bytes(data[y * line_length : y * line_length + width * size]) for y in range(height))
    try:
        rgb = decode_bitfields(pixels, size, v)
    except ValueError as error:
        print(f"fbgrab: {error}", file=sys.stderr)
        return 2
    write_image(out, width, height, bytes(rgb))
    return 0


def decode_bitfields(pixels, size, v):
    """Packed RGB of little-endian pixels of SIZE bytes whose channels are
    v["red.offset"], v["red.length"], ... Byte k of every pixel goes through
    a table giving the bits it holds of one channel, already shifted into
    place; the parts from different bytes are disjoint bits, so one
    big-integer OR joins them. C speed throughout: a per-pixel Python loop
    takes many seconds under TCG."""
    count = len(pixels) // size
    rgb = bytearray(count * 3)
    for index, channel in enumerate(("red", "green", "blue")):
        offset, length = v[channel + ".offset"], v[channel + ".length"]
        if not 0 < length <= 8:
            raise ValueError(f"{channel} has {length} bits")
        maximum, value = (1 << length) - 1, 0
        for k in range(size):
            table = bytes((((b << (8 * k)) >> offset) & maximum) for b in range(256))
            value |= int.from_bytes(pixels[k::size].translate(table), "big")
        scale = bytes((x * 255 + maximum // 2) // maximum if x <= maximum else 0 for x in range(256))
        rgb[index::3] = value.to_bytes(count, "big").translate(scale)
    return bytes(rgb)


def fbwatch(device, seconds, interval, stats):
    """yoffset sampled with FBIOGET_VSCREENINFO (one open descriptor) over a
    window that begins and ends at rewrites of the daemon's statistics file,
    so that the pans seen and the frames presented are counted over the
    same stretch of time, however slowly the guest runs meanwhile."""
    interval = float(interval)

    def rewritten(after, limit=30):
        """The statistics once their uptime differs from `after` (at most
        `limit` s of waiting), sampling meanwhile."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            values = read_stats(stats)
            if "frames" in values and values.get("uptime") not in (None, after):
                return values
            sample()
            time.sleep(interval)
        raise TimeoutError("%s not rewritten within %d s" % (stats, limit))

    fd = os.open(device, os.O_RDONLY)
    var, samples = bytearray(160), []

    def sample():
        fcntl.ioctl(fd, FBIOGET_VSCREENINFO, var)
        samples.append(struct.unpack_from("=I", var, 20)[0])

    try:
        first = rewritten(read_stats(stats).get("uptime"))
        samples.clear()
        deadline = time.monotonic() + float(seconds)
        while time.monotonic() < deadline:
            sample()
            time.sleep(interval)
        last = rewritten(read_stats(stats).get("uptime"))
        sample()
    except TimeoutError as error:
        print("fbwatch: %s" % error, file=sys.stderr)
        return 1
    finally:
        os.close(fd)
    runs = [samples[0]] if samples else []
    for value in samples[1:]:
        if value != runs[-1]:
            runs.append(value)
    print("samples=%d changes=%d values=%s frames=%d window=%.2f sequence=%s" % (
        len(samples), len(runs) - 1, ",".join(map(str, sorted(set(samples)))),
        int(last["frames"]) - int(first["frames"]), float(last["uptime"]) - float(first["uptime"]),
        ",".join(map(str, runs))))
    return 0


DRM_MODE_OBJECT_CRTC = 0xCCCCCCCC
DRM_MODE_OBJECT_CONNECTOR = 0xC0C0C0C0
DRM_MODE_OBJECT_PLANE = 0xEEEEEEEE
DRM_CLIENT_CAP_UNIVERSAL_PLANES = 2
DRM_CLIENT_CAP_ATOMIC = 3
DRM_IOCTL_SET_MASTER = 0x641E   # _IO('d', 0x1e)
FBIOBLANK = 0x4611


@functools.lru_cache(maxsize=None)
def libdrm():
    """libdrm.so.2 with the few calls these tools make, typed (loaded once)."""
    import ctypes
    lib = ctypes.CDLL("libdrm.so.2", use_errno=True)

    class Resources(ctypes.Structure):
        _fields_ = [("count_fbs", ctypes.c_int), ("fbs", ctypes.POINTER(ctypes.c_uint32)),
                    ("count_crtcs", ctypes.c_int), ("crtcs", ctypes.POINTER(ctypes.c_uint32)),
                    ("count_connectors", ctypes.c_int), ("connectors", ctypes.POINTER(ctypes.c_uint32)),
                    ("count_encoders", ctypes.c_int), ("encoders", ctypes.POINTER(ctypes.c_uint32)),
                    ("min_width", ctypes.c_uint32), ("max_width", ctypes.c_uint32),
                    ("min_height", ctypes.c_uint32), ("max_height", ctypes.c_uint32)]

    class ObjectProperties(ctypes.Structure):
        _fields_ = [("count_props", ctypes.c_uint32), ("props", ctypes.POINTER(ctypes.c_uint32)),
                    ("prop_values", ctypes.POINTER(ctypes.c_uint64))]

    class Property(ctypes.Structure):
        _fields_ = [("prop_id", ctypes.c_uint32), ("flags", ctypes.c_uint32), ("name", ctypes.c_char * 32)]   # the rest unread

    class ModeInfo(ctypes.Structure):
        _fields_ = [("clock", ctypes.c_uint32)] + [(n, ctypes.c_uint16) for n in
                    "hdisplay hsync_start hsync_end htotal hskew vdisplay vsync_start vsync_end vtotal vscan".split()] + \
                   [("vrefresh", ctypes.c_uint32), ("flags", ctypes.c_uint32), ("type", ctypes.c_uint32), ("name", ctypes.c_char * 32)]

    class Crtc(ctypes.Structure):
        _fields_ = [("crtc_id", ctypes.c_uint32), ("buffer_id", ctypes.c_uint32), ("x", ctypes.c_uint32), ("y", ctypes.c_uint32),
                    ("width", ctypes.c_uint32), ("height", ctypes.c_uint32), ("mode_valid", ctypes.c_int),
                    ("mode", ModeInfo), ("gamma_size", ctypes.c_int)]

    class PlaneResources(ctypes.Structure):
        _fields_ = [("count_planes", ctypes.c_uint32), ("planes", ctypes.POINTER(ctypes.c_uint32))]

    lib.drmModeGetResources.restype = ctypes.POINTER(Resources)
    lib.drmModeObjectGetProperties.restype = ctypes.POINTER(ObjectProperties)
    lib.drmModeObjectGetProperties.argtypes = [ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32]
    lib.drmModeGetProperty.restype = ctypes.POINTER(Property)
    lib.drmModeGetProperty.argtypes = [ctypes.c_int, ctypes.c_uint32]
    lib.drmModeGetCrtc.restype = ctypes.POINTER(Crtc)
    lib.drmModeGetCrtc.argtypes = [ctypes.c_int, ctypes.c_uint32]
    lib.drmModeGetPlaneResources.restype = ctypes.POINTER(PlaneResources)
    lib.drmSetClientCap.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64]
    for name in ("drmModeFreeResources", "drmModeFreeObjectProperties", "drmModeFreeProperty", "drmModeFreeCrtc",
                 "drmModeFreePlaneResources"):
        getattr(lib, name).argtypes = [ctypes.c_void_p]
    return lib


def drm_properties(lib, fd, object_id, object_type):
    """{name: value} of one KMS object."""
    import ctypes
    found = {}
    listed = lib.drmModeObjectGetProperties(fd, object_id, object_type)
    if not listed:
        return found
    for i in range(listed.contents.count_props):
        prop = lib.drmModeGetProperty(fd, listed.contents.props[i])
        if prop:
            found[prop.contents.name.decode()] = listed.contents.prop_values[i]
            lib.drmModeFreeProperty(ctypes.cast(prop, ctypes.c_void_p))
    lib.drmModeFreeObjectProperties(ctypes.cast(listed, ctypes.c_void_p))
    return found


def drm_power(card, say=print):
    """Read-only: never SET_MASTER. (Opening a DRM device no one is master
    of makes this process master until it closes it.) Returns the number of
    active CRTCs, None if the resources could not be read; `say` gets the
    lines."""
    import ctypes
    lib = libdrm()
    fd = os.open(card, os.O_RDWR | os.O_CLOEXEC)
    try:
        lib.drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1)
        if lib.drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1) != 0:
            say("atomic=no")
        resources = lib.drmModeGetResources(fd)
        if not resources:
            print("drm-power: drmModeGetResources failed: %s" % os.strerror(ctypes.get_errno()), file=sys.stderr)
            return None
        res = resources.contents
        active = 0
        for i in range(res.count_crtcs):
            crtc_id = res.crtcs[i]
            props = drm_properties(lib, fd, crtc_id, DRM_MODE_OBJECT_CRTC)
            crtc = lib.drmModeGetCrtc(fd, crtc_id)
            mode_valid, fb = (crtc.contents.mode_valid, crtc.contents.buffer_id) if crtc else (-1, -1)
            if crtc:
                lib.drmModeFreeCrtc(ctypes.cast(crtc, ctypes.c_void_p))
            active += props.get("ACTIVE", 0) != 0
            say("crtc %d ACTIVE=%s mode_valid=%d fb=%d" % (crtc_id, props.get("ACTIVE", "?"), mode_valid, fb))
        names = ["On", "Standby", "Suspend", "Off"]
        for i in range(res.count_connectors):
            connector_id = res.connectors[i]
            props = drm_properties(lib, fd, connector_id, DRM_MODE_OBJECT_CONNECTOR)
            dpms = props.get("DPMS")
            say("connector %d DPMS=%s crtc=%s" % (connector_id, names[dpms] if dpms is not None and dpms < 4 else dpms,
                                                     props.get("CRTC_ID", "?")))
        lib.drmModeFreeResources(ctypes.cast(resources, ctypes.c_void_p))
        planes = lib.drmModeGetPlaneResources(fd)
        if planes:
            for i in range(planes.contents.count_planes):
                props = drm_properties(lib, fd, planes.contents.planes[i], DRM_MODE_OBJECT_PLANE)
                if props.get("type") == 1:   # DRM_PLANE_TYPE_PRIMARY
                    say("plane %d fb=%s crtc=%s" % (planes.contents.planes[i], props.get("FB_ID", "?"), props.get("CRTC_ID", "?")))
            lib.drmModeFreePlaneResources(ctypes.cast(planes, ctypes.c_void_p))
        say("active_crtcs=%d" % active)
    finally:
        os.close(fd)
    return active


def power_watch(card, path, out, stop):
    import json
    number = 0
    with open(out, "a") as log:
        while not os.path.exists(stop):
            began, stamp = time.monotonic(), time.clock_gettime(time.CLOCK_BOOTTIME)
            try:
                active = drm_power(card, say=lambda line: None)
            except OSError:
                active = None
            number += 1
            fields = "power=? reason=? spiral=? started=? recorded=? window=? summary=?"
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                    connection.settimeout(10)
                    connection.connect(path)
                    connection.sendall(json.dumps({"id": number, "cmd": "status"}).encode() + b"\n")
                    buffer = b""
                    while b"\n" not in buffer:
                        chunk = connection.recv(1 << 20)
                        if not chunk:
                            raise OSError("end of stream")
                        buffer += chunk
                r = json.loads(buffer.split(b"\n", 1)[0])["result"]
                spiral = r.get("spiral") or {}
                fields = "power=%s reason=%s spiral=%s started=%s recorded=%s window=%s summary=%s" % (
                    r["display_power"], r["display_reason"] or "-", spiral.get("state", "-"), r["sessions"]["started"],
                    r["sessions"]["recorded"], (r.get("schedule") or {}).get("window", "-").replace(" ", "_"),
                    r["display_summary"])
            except (OSError, ValueError, KeyError, TypeError):
                pass
            print("%.2f crtc=%s %s" % (stamp, "?" if active is None else active, fields),
                  file=log, flush=True)
            time.sleep(max(0.0, 1.0 - (time.monotonic() - began)))
    return 0


def drm_hold(card, stop):
    fd = os.open(card, os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.ioctl(fd, DRM_IOCTL_SET_MASTER)
    except OSError as error:
        print("busy: %s" % error, flush=True)
        os.close(fd)
        return 1
    print("master", flush=True)
    while not os.path.exists(stop):
        time.sleep(0.05)
    os.close(fd)
    return 0


def fbblank(device, level):
    fd = os.open(device, os.O_RDWR)
    try:
        fcntl.ioctl(fd, FBIOBLANK, int(level))
        print("ok")
    except OSError as error:
        print("errno %d (%s)" % (error.errno, error.strerror))
    finally:
        os.close(fd)


def cpu_ticks(pid):
    with open("/proc/%s/stat" % pid) as file:
        fields = file.read().rsplit(")", 1)[1].split()
    print(int(fields[11]) + int(fields[12]))   # utime, stime (fields 14, 15)


def rotate(source, target, degrees):
    from images import read_image, write_image
    width, height, rgb = read_image(source)
    turns = int(degrees) // 90 % 4
    for _ in range(turns):
        # Clockwise: output pixel (x, y) of the height×width result is input (y, height-1-x).
        out = bytearray(len(rgb))
        for y in range(width):
            for x in range(height):
                i = ((height - 1 - x) * width + y) * 3
                o = (y * height + x) * 3
                out[o:o + 3] = rgb[i:i + 3]
        width, height, rgb = height, width, bytes(out)
    write_image(target, width, height, rgb)


def rate(before, after):
    a, b = read_stats(before), read_stats(after)
    frames = int(b["frames"]) - int(a["frames"])
    seconds = float(b["uptime"]) - float(a["uptime"])
    if seconds <= 0:
        print("rate: the snapshots are not in time order", file=sys.stderr)
        return 2
    print("%.1f" % (frames / seconds))
    return 0


def snapshot_stream(path, out, stop):
    import base64
    import json
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(30)
    connection.connect(path)
    buffer, number = b"", 0
    with open(out, "w") as log:
        while not os.path.exists(stop):
            if os.path.exists(stop + ".pause"):
                print("%.3f paused" % time.time(), file=log, flush=True)
                while os.path.exists(stop + ".pause") and not os.path.exists(stop):
                    time.sleep(0.05)
                print("%.3f resumed" % time.time(), file=log, flush=True)
                continue
            number += 1
            try:
                connection.sendall(json.dumps({"id": number, "cmd": "snapshot"}).encode() + b"\n")
                while b"\n" not in buffer:
                    chunk = connection.recv(1 << 20)
                    if not chunk:
                        raise OSError("end of stream")
                    buffer += chunk
            except OSError as error:
                print("%.3f closed %s" % (time.time(), error), file=log, flush=True)
                return 1
            line, buffer = buffer.split(b"\n", 1)
            reply = json.loads(line)
            if reply.get("ok"):
                result = reply["result"]
                with open(out + ".png", "wb") as png:
                    png.write(base64.b64decode(result["png"]))
                print("%.3f ok %dx%d" % (time.time(), result["width"], result["height"]), file=log, flush=True)
            else:
                error = reply.get("error", {})
                print("%.3f error %s %s" % (time.time(), error.get("code"), error.get("message")), file=log, flush=True)
            time.sleep(0.2)
    return 0


def snapshot_summary(log, gone, back):
    gone, back = float(gone), float(back)
    before, during, after, refusals, other, closed = 0, 0, 0, 0, [], 0
    for line in open(log):
        stamp, kind, rest = (line.rstrip("\n").split(" ", 2) + ["", ""])[:3]
        t = float(stamp)
        if kind in ("paused", "resumed"):
            continue
        if kind == "closed":
            closed += 1
        elif t < gone:
            before += kind == "ok"
        elif t < back:
            during += 1
            if kind == "error" and rest.startswith("no_frame ") and "disconnected" in rest:
                refusals += 1
            else:
                other.append(line.strip())
        else:
            after += kind == "ok"
    print(f"snapshots: {before} before the unplug, {during} while unplugged ({refusals} refused: display disconnected), "
          f"{after} after the replug; connection closed: {closed}")
    for line in other[:5]:
        print("unexpected while unplugged: " + line)
    good = before > 0 and during > 0 and refusals == during and after > 0 and closed == 0
    print("verdict: " + ("ok" if good else "FAIL"))
    return 0 if good else 1


def lit(path):
    from images import read_image
    width, height, rgb = read_image(path)
    count = 0 if rgb.count(0) == len(rgb) else sum(1 for i in range(0, len(rgb), 3) if any(rgb[i:i + 3]))
    print(count)


def main(argv):
    commands = {
        "kdmode": (kdmode, 1), "chvt": (chvt, 1), "notify-listen": (notify_listen, 2),
        "wait-stats": (wait_stats, 4), "rotate": (rotate, 3), "rate": (rate, 2), "lit": (lit, 1),
        "snapshot-stream": (snapshot_stream, 3), "snapshot-summary": (snapshot_summary, 3),
        "drm-power": (lambda card: 0 if drm_power(card) is not None else 1, 1), "power-watch": (power_watch, 4), "drm-hold": (drm_hold, 2), "fbblank": (fbblank, 2), "cpu-ticks": (cpu_ticks, 1),
        "fbvar": (fbvar, 1), "fbvar-all": (fbvar_all, 1), "fbdepth": (fbdepth, 2), "fbgrab": (fbgrab, 2), "fbwatch": (fbwatch, 4),
    }
    if len(argv) < 2 or argv[1] not in commands or len(argv) - 2 != commands[argv[1]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    return commands[argv[1]][0](*argv[2:]) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
