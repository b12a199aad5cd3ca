#!/usr/bin/env python3
"""Guest-side checks that the VT and input devices really work, by ioctl
(the smoke case runs this inside the guest; stdlib only).

  - /dev/tty1 opens, is in KD_TEXT mode, and VT 1 is the active console
    (what chakrad needs before it switches the VT to KD_GRAPHICS);
  - /dev/uinput creates a keyboard; evdev gives it a /dev/input/event node;
    a key written to uinput comes back out of that node.

Prints "ok: ..." or "FAIL: ..." per check; exit status 1 if any failed.
"""

import fcntl
import glob
import os
import select
import struct
import sys
import time

KDGETMODE, KD_TEXT = 0x4B3B, 0
VT_GETSTATE = 0x5603
# _IOR/_IOW/_IO('U', nr, ...) from linux/uinput.h, spelled out.
UI_GET_VERSION = 0x8004552D
UI_SET_EVBIT, UI_SET_KEYBIT = 0x40045564, 0x40045565
UI_DEV_CREATE, UI_DEV_DESTROY = 0x5501, 0x5502
UI_GET_SYSNAME_64 = 0x8040552C
EV_SYN, EV_KEY, KEY_A = 0, 1, 30
INPUT_EVENT = struct.Struct("llHHi")  # struct input_event on 64-bit

failures = 0


def check(condition, message):
    global failures
    print(("ok: " if condition else "FAIL: ") + message, flush=True)
    failures += 0 if condition else 1


def probe_vt():
    fd = os.open("/dev/tty1", os.O_RDWR | os.O_NOCTTY)
    try:
        (mode,) = struct.unpack("i", fcntl.ioctl(fd, KDGETMODE, bytes(4)))
        check(mode == KD_TEXT, f"/dev/tty1 is in KD_TEXT mode (got {mode})")
        active, _, _ = struct.unpack("HHH", fcntl.ioctl(fd, VT_GETSTATE, bytes(6)))
        check(active == 1, f"VT 1 is the active console (got {active})")
    finally:
        os.close(fd)


def uinput_user_dev(name):
    # struct uinput_user_dev: name[80], input_id (4 x u16), ff_effects_max,
    # then absmax/absmin/absfuzz/absflat, 64 s32 each.
    return name.encode().ljust(80, b"\0") + struct.pack("<4HI", 3, 1, 1, 1, 0) + bytes(4 * 64 * 4)


def event_node(sysname):
    for _ in range(50):
        nodes = glob.glob(f"/sys/devices/virtual/input/{sysname}/event*")
        if nodes and os.path.exists("/dev/input/" + os.path.basename(nodes[0])):
            return "/dev/input/" + os.path.basename(nodes[0])
        time.sleep(0.05)
    return None


def read_key(fd):
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if select.select([fd], [], [], 0.5)[0]:
            _, _, kind, code, value = INPUT_EVENT.unpack(os.read(fd, INPUT_EVENT.size))
            if kind == EV_KEY:
                return code, value
    return None


def probe_uinput():
    fd = os.open("/dev/uinput", os.O_RDWR)
    try:
        (version,) = struct.unpack("I", fcntl.ioctl(fd, UI_GET_VERSION, bytes(4)))
        check(version >= 5, f"uinput version {version}")
        fcntl.ioctl(fd, UI_SET_EVBIT, EV_KEY)
        fcntl.ioctl(fd, UI_SET_KEYBIT, KEY_A)
        os.write(fd, uinput_user_dev("chakra-vm probe"))
        fcntl.ioctl(fd, UI_DEV_CREATE)
        sysname = fcntl.ioctl(fd, UI_GET_SYSNAME_64, bytes(64)).split(b"\0")[0].decode()
        node = event_node(sysname)
        check(node is not None, f"uinput device {sysname} has an evdev node ({node})")
        if node is None:
            return
        reader = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
        try:
            for kind, code, value in ((EV_KEY, KEY_A, 1), (EV_SYN, 0, 0)):
                os.write(fd, INPUT_EVENT.pack(0, 0, kind, code, value))
            got = read_key(reader)
            check(got == (KEY_A, 1), f"KEY_A press written to uinput is read from {node} (got {got})")
        finally:
            os.close(reader)
        fcntl.ioctl(fd, UI_DEV_DESTROY)
    finally:
        os.close(fd)


def main():
    for probe in (probe_vt, probe_uinput):
        try:
            probe()
        except OSError as error:
            check(False, f"{probe.__name__}: {error}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
