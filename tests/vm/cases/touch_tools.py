#!/usr/bin/env python3
"""Guest-side uinput devices for 40-touch-uinput (stdlib only, raw ioctls).

  touch_tools.py device KIND NAME
      Creates a uinput device and prints "created /dev/input/eventN", then
      reads commands from stdin, one a line, and writes their events:
        down SLOT ID X Y   protocol B: ABS_MT_SLOT, ABS_MT_TRACKING_ID, X, Y (+ BTN_TOUCH) , SYN_REPORT
        move SLOT X Y      ABS_MT_SLOT, X, Y, SYN_REPORT
        up SLOT            ABS_MT_SLOT, ABS_MT_TRACKING_ID -1 (+ BTN_TOUCH 0), SYN_REPORT
        st X Y TOUCH       single-touch: ABS_X, ABS_Y, BTN_TOUCH, SYN_REPORT
        frame [X Y]...     protocol A: each contact's X, Y, SYN_MT_REPORT, then BTN_TOUCH
                           and SYN_REPORT (no contacts: a lone SYN_MT_REPORT, all up)
        flood SLOT X0 N [MS]  N frames moving SLOT's X from X0 by 1, MS milliseconds
                           apart (default 0: at once, to overflow a reader's buffer)
        destroy            UI_DEV_DESTROY (the device vanishes; this script goes on)
      and prints "done LINE" after each. EOF destroys the device.
      KIND:
        mt-b      INPUT_PROP_DIRECT, 10 slots, ABS_MT_POSITION_X 0..3999, Y 0..2999
        mt-b2     the same with X -2000..1999, Y 0..999 (a range not starting at 0)
        mt-a      protocol A: INPUT_PROP_DIRECT, ABS_MT_POSITION_X 0..3999, Y 0..2999, no slots
        st        ABS_X 0..1023, ABS_Y 0..767, BTN_TOUCH, no INPUT_PROP_DIRECT
        touchpad  like mt-b without INPUT_PROP_DIRECT, with BTN_TOOL_FINGER
        ff        EV_FF with FF_RUMBLE (4 effects): answers the uploads and
                  erasures (UI_BEGIN/END_FF_UPLOAD/ERASE) and prints
                  "upload id=N type=0xT length=MS strong=S weak=W" and
                  "play effect=N value=V" for what it is sent; ends at EOF
                  of stdin or after 250 s.

  touch_tools.py grab-probe NODE
      Tries EVIOCGRAB on NODE and lets go at once: prints "free" when it
      could grab, "grabbed" when another reader holds the grab (EBUSY).

Event and ioctl numbers are those of linux/input-event-codes.h and
linux/uinput.h, computed here with _IOC like the C macros.
"""

import errno
import fcntl
import glob
import os
import select
import struct
import sys
import time

EV_SYN, EV_KEY, EV_ABS, EV_FF, EV_UINPUT = 0x00, 0x01, 0x03, 0x15, 0x0101
SYN_REPORT, SYN_MT_REPORT = 0, 2
BTN_TOOL_FINGER, BTN_TOUCH = 0x145, 0x14A
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x36, 0x39
INPUT_PROP_DIRECT = 0x01
FF_RUMBLE = 0x50
UI_FF_UPLOAD, UI_FF_ERASE = 1, 2
BUS_VIRTUAL = 0x06

INPUT_EVENT = struct.Struct("llHHi")  # struct input_event on 64-bit: timeval, type, code, value
UINPUT_SETUP = struct.Struct("4H80sI")  # input_id, name[80], ff_effects_max
UINPUT_ABS_SETUP = struct.Struct("H2x6i")  # code, absinfo (value, min, max, fuzz, flat, resolution)
FF_EFFECT_SIZE = 48  # struct ff_effect on 64-bit (the union holds a pointer)
UINPUT_FF_UPLOAD = struct.Struct(f"Ii{FF_EFFECT_SIZE}s{FF_EFFECT_SIZE}s")
UINPUT_FF_ERASE = struct.Struct("IiI")


def _ioc(direction, number, size):
    return (direction << 30) | (size << 16) | (ord("U") << 8) | number


_IO, _IOW, _IOR, _IOWR = 0, 1, 2, 3
UI_DEV_CREATE = _ioc(_IO, 1, 0)
UI_DEV_DESTROY = _ioc(_IO, 2, 0)
UI_DEV_SETUP = _ioc(_IOW, 3, UINPUT_SETUP.size)
UI_ABS_SETUP = _ioc(_IOW, 4, UINPUT_ABS_SETUP.size)
UI_SET_EVBIT = _ioc(_IOW, 100, 4)
UI_SET_KEYBIT = _ioc(_IOW, 101, 4)
UI_SET_ABSBIT = _ioc(_IOW, 103, 4)
UI_SET_FFBIT = _ioc(_IOW, 107, 4)
UI_SET_PROPBIT = _ioc(_IOW, 110, 4)
UI_GET_SYSNAME_64 = _ioc(_IOR, 44, 64)
UI_BEGIN_FF_UPLOAD = _ioc(_IOWR, 200, UINPUT_FF_UPLOAD.size)
UI_END_FF_UPLOAD = _ioc(_IOW, 201, UINPUT_FF_UPLOAD.size)
UI_BEGIN_FF_ERASE = _ioc(_IOWR, 202, UINPUT_FF_ERASE.size)
UI_END_FF_ERASE = _ioc(_IOW, 203, UINPUT_FF_ERASE.size)

KINDS = {
    "mt-b": {"direct": True, "x": (0, 3999), "y": (0, 2999)},
    "mt-b2": {"direct": True, "x": (-2000, 1999), "y": (0, 999)},
    "touchpad": {"direct": False, "x": (0, 3999), "y": (0, 2999)},
    "mt-a": {"direct": True, "x": (0, 3999), "y": (0, 2999), "slots": False},
}


def say(text):
    print(text, flush=True)


def absinfo(fd, code, low, high):
    fcntl.ioctl(fd, UI_SET_ABSBIT, code)
    fcntl.ioctl(fd, UI_ABS_SETUP, UINPUT_ABS_SETUP.pack(code, 0, low, high, 0, 0, 0))


def create(kind, name):
    fd = os.open("/dev/uinput", os.O_RDWR | (os.O_NONBLOCK if kind == "ff" else 0))
    effects = 0
    if kind in KINDS:
        spec = KINDS[kind]
        fcntl.ioctl(fd, UI_SET_EVBIT, EV_KEY)
        fcntl.ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH)
        if not spec["direct"]:
            fcntl.ioctl(fd, UI_SET_KEYBIT, BTN_TOOL_FINGER)
        fcntl.ioctl(fd, UI_SET_EVBIT, EV_ABS)
        # The pointer-emulation axes real multitouch drivers also have.
        absinfo(fd, ABS_X, *spec["x"])
        absinfo(fd, ABS_Y, *spec["y"])
        if spec.get("slots", True):
            absinfo(fd, ABS_MT_SLOT, 0, 9)
            absinfo(fd, ABS_MT_TRACKING_ID, 0, 65535)
        absinfo(fd, ABS_MT_POSITION_X, *spec["x"])
        absinfo(fd, ABS_MT_POSITION_Y, *spec["y"])
        if spec["direct"]:
            fcntl.ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT)
    elif kind == "st":
        fcntl.ioctl(fd, UI_SET_EVBIT, EV_KEY)
        fcntl.ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH)
        fcntl.ioctl(fd, UI_SET_EVBIT, EV_ABS)
        absinfo(fd, ABS_X, 0, 1023)
        absinfo(fd, ABS_Y, 0, 767)
    elif kind == "ff":
        fcntl.ioctl(fd, UI_SET_EVBIT, EV_FF)
        fcntl.ioctl(fd, UI_SET_FFBIT, FF_RUMBLE)
        effects = 4
    else:
        raise SystemExit(f"unknown kind {kind}")
    fcntl.ioctl(fd, UI_DEV_SETUP, UINPUT_SETUP.pack(BUS_VIRTUAL, 0x1234, 0x5678, 1, name.encode(), effects))
    fcntl.ioctl(fd, UI_DEV_CREATE)
    sysname = fcntl.ioctl(fd, UI_GET_SYSNAME_64, bytes(64)).split(b"\0")[0].decode()
    for _ in range(100):
        nodes = glob.glob(f"/sys/devices/virtual/input/{sysname}/event*")
        if nodes and os.path.exists("/dev/input/" + os.path.basename(nodes[0])):
            return fd, "/dev/input/" + os.path.basename(nodes[0])
        time.sleep(0.05)
    raise SystemExit(f"no event node for {sysname}")


def emit(fd, events):
    os.write(fd, b"".join(INPUT_EVENT.pack(0, 0, kind, code, value) for kind, code, value in events))


def command(fd, kind, words):
    verb, args = words[0], [int(w) for w in words[1:]]
    if verb == "down":
        slot, ident, x, y = args
        emit(fd, [(EV_ABS, ABS_MT_SLOT, slot), (EV_ABS, ABS_MT_TRACKING_ID, ident), (EV_ABS, ABS_MT_POSITION_X, x),
                  (EV_ABS, ABS_MT_POSITION_Y, y), (EV_KEY, BTN_TOUCH, 1), (EV_SYN, SYN_REPORT, 0)])
    elif verb == "move":
        slot, x, y = args
        emit(fd, [(EV_ABS, ABS_MT_SLOT, slot), (EV_ABS, ABS_MT_POSITION_X, x), (EV_ABS, ABS_MT_POSITION_Y, y),
                  (EV_SYN, SYN_REPORT, 0)])
    elif verb == "up":
        (slot,) = args
        emit(fd, [(EV_ABS, ABS_MT_SLOT, slot), (EV_ABS, ABS_MT_TRACKING_ID, -1), (EV_SYN, SYN_REPORT, 0)])
    elif verb == "st":
        x, y, down = args
        emit(fd, [(EV_ABS, ABS_X, x), (EV_ABS, ABS_Y, y), (EV_KEY, BTN_TOUCH, down), (EV_SYN, SYN_REPORT, 0)])
    elif verb == "frame":
        events = []
        for x, y in zip(args[0::2], args[1::2]):
            events += [(EV_ABS, ABS_MT_POSITION_X, x), (EV_ABS, ABS_MT_POSITION_Y, y), (EV_SYN, SYN_MT_REPORT, 0)]
        if not args:
            events.append((EV_SYN, SYN_MT_REPORT, 0))
        emit(fd, events + [(EV_KEY, BTN_TOUCH, 1 if args else 0), (EV_SYN, SYN_REPORT, 0)])
    elif verb == "flood":
        slot, x0, count, pause = (args + [0])[:4]
        emit(fd, [(EV_ABS, ABS_MT_SLOT, slot), (EV_SYN, SYN_REPORT, 0)])
        for i in range(count):
            emit(fd, [(EV_ABS, ABS_MT_POSITION_X, x0 + i), (EV_SYN, SYN_REPORT, 0)])
            if pause:
                time.sleep(pause / 1000)
    elif verb == "destroy":
        fcntl.ioctl(fd, UI_DEV_DESTROY)
    else:
        raise SystemExit(f"unknown command {words}")


def serve_force_feedback(fd):
    """Answers the kernel's upload and erase requests (the uploading process
    waits for them) and reports plays, until stdin ends or 250 s pass."""
    deadline = time.monotonic() + 250
    stdin_open = True
    while time.monotonic() < deadline:
        ready = select.select([fd] + ([sys.stdin] if stdin_open else []), [], [], 0.5)[0]
        if sys.stdin in ready and not sys.stdin.readline():
            return
        if fd not in ready:
            continue
        try:
            data = os.read(fd, INPUT_EVENT.size * 16)
        except BlockingIOError:
            continue
        for offset in range(0, len(data), INPUT_EVENT.size):
            _, _, kind, code, value = INPUT_EVENT.unpack_from(data, offset)
            if kind == EV_UINPUT and code == UI_FF_UPLOAD:
                upload = bytearray(UINPUT_FF_UPLOAD.pack(value, 0, bytes(FF_EFFECT_SIZE), bytes(FF_EFFECT_SIZE)))
                fcntl.ioctl(fd, UI_BEGIN_FF_UPLOAD, upload)
                request, _, effect, _ = UINPUT_FF_UPLOAD.unpack(bytes(upload))
                etype, eid, _, _, _, length, delay = struct.unpack_from("HhHHHHH", effect)
                strong, weak = struct.unpack_from("HH", effect, 16)
                say(f"upload id={eid} type=0x{etype:x} length={length} delay={delay} strong={strong} weak={weak}")
                fcntl.ioctl(fd, UI_END_FF_UPLOAD, UINPUT_FF_UPLOAD.pack(request, 0, effect, bytes(FF_EFFECT_SIZE)))
            elif kind == EV_UINPUT and code == UI_FF_ERASE:
                erase = bytearray(UINPUT_FF_ERASE.pack(value, 0, 0))
                fcntl.ioctl(fd, UI_BEGIN_FF_ERASE, erase)
                request, _, effect_id = UINPUT_FF_ERASE.unpack(bytes(erase))
                say(f"erase id={effect_id}")
                fcntl.ioctl(fd, UI_END_FF_ERASE, UINPUT_FF_ERASE.pack(request, 0, effect_id))
            elif kind == EV_FF:
                say(f"play effect={code} value={value}")


EVIOCGRAB = (_IOW << 30) | (4 << 16) | (ord("E") << 8) | 0x90


def grab_probe(node):
    fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
    try:
        fcntl.ioctl(fd, EVIOCGRAB, 1)
        fcntl.ioctl(fd, EVIOCGRAB, 0)
        say("free")
    except OSError as error:
        if error.errno != errno.EBUSY:
            raise
        say("grabbed")
    finally:
        os.close(fd)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "grab-probe":
        grab_probe(sys.argv[2])
        return
    if len(sys.argv) != 4 or sys.argv[1] != "device":
        raise SystemExit(__doc__)
    kind, name = sys.argv[2], sys.argv[3]
    fd, node = create(kind, name)
    say(f"created {node}")
    if kind == "ff":
        serve_force_feedback(fd)
        return
    for line in sys.stdin:
        words = line.split()
        if words:
            command(fd, kind, words)
            say("done " + line.strip())
    try:
        fcntl.ioctl(fd, UI_DEV_DESTROY)
    except OSError:
        pass


if __name__ == "__main__":
    main()
