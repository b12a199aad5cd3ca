#!/usr/bin/env python3
"""Small tools for the display cases (10-*.sh ... 49-*.sh), stdlib only.

Guest side:
  display_tools.py kdmode TTY              prints 0 (KD_TEXT) or 1 (KD_GRAPHICS)
  display_tools.py chvt N                  switches to VT N and waits for it
  display_tools.py notify-listen SOCKET OUT   an sd_notify receiver: appends
                                           each datagram to OUT, one line each
  display_tools.py wait-stats FILE KEY MIN SECONDS
                                           waits until FILE's KEY=value >= MIN
Host side:
  display_tools.py rotate IN OUT DEGREES   turns an image clockwise (90/180/270)
  display_tools.py rate BEFORE AFTER       frames per second between two
                                           --stats-file snapshots
"""

import array
import fcntl
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

KDGETMODE = 0x4B3B     # linux/kd.h
VT_ACTIVATE = 0x5606   # linux/vt.h
VT_WAITACTIVE = 0x5607


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


def main(argv):
    commands = {
        "kdmode": (kdmode, 1), "chvt": (chvt, 1), "notify-listen": (notify_listen, 2),
        "wait-stats": (wait_stats, 4), "rotate": (rotate, 3), "rate": (rate, 2),
    }
    if len(argv) < 2 or argv[1] not in commands or len(argv) - 2 != commands[argv[1]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    return commands[argv[1]][0](*argv[2:]) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
