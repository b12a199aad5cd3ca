#!/usr/bin/env python3
"""The smoke test's known picture: four coloured quadrants.

    quadrants.py --fb /dev/fb0 GEOMETRY-FILE   (guest) fill the framebuffer,
                                               write "WIDTH HEIGHT" to the file
    quadrants.py --expected WIDTH HEIGHT OUT   (host) the same picture as PPM/PNG

The framebuffer side reads the geometry from sysfs (virtual_size, stride,
bits_per_pixel) and the channel layout from FBIOGET_VSCREENINFO, and packs
each colour by those offsets; the expected side writes plain RGB. So a wrong
byte order, stride or size in the driver shows up in the comparison. The
colours differ in every channel so that swapped channels cannot match.
"""

import fcntl
import mmap
import os
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from images import write_image  # noqa: E402

#            top-left       top-right      bottom-left    bottom-right
COLOURS = ((230, 40, 20), (30, 200, 60), (20, 50, 220), (250, 210, 90))
FBIOGET_VSCREENINFO = 0x4600


def quadrant_rows(width, pack):
    half = width // 2
    top = pack(COLOURS[0]) * half + pack(COLOURS[1]) * (width - half)
    bottom = pack(COLOURS[2]) * half + pack(COLOURS[3]) * (width - half)
    return top, bottom


def sysfs(name):
    with open(f"/sys/class/graphics/fb0/{name}") as file:
        return file.read().strip()


def channel_offsets(device):
    """(red, green, blue) bit offsets from struct fb_var_screeninfo: eight
    u32 fields (sizes, offsets, bpp, grayscale), then red, green, blue as
    fb_bitfield {offset, length, msb_right}."""
    info = fcntl.ioctl(device, FBIOGET_VSCREENINFO, bytes(160))
    fields = struct.unpack_from("<8I9I", info)
    return fields[8], fields[11], fields[14]


def fill_framebuffer(path, geometry_file):
    width, height = (int(value) for value in sysfs("virtual_size").split(","))
    stride, bpp = int(sysfs("stride")), int(sysfs("bits_per_pixel"))
    if bpp != 32:
        sys.exit(f"quadrants.py: {bpp} bits per pixel; only 32 is supported")
    with open(path, "r+b", buffering=0) as device:
        red, green, blue = channel_offsets(device)

        def pack(colour):
            r, g, b = colour
            return struct.pack("<I", r << red | g << green | b << blue)

        top, bottom = quadrant_rows(width, pack)
        # Through mmap, as a display client does: on Debian 12's kernel
        # (6.1), write() to a DRM driver's emulated fbdev updates only the
        # shadow buffer and never reaches the screen; mmap page faults
        # drive the deferred-I/O flush.
        with mmap.mmap(device.fileno(), stride * height) as pixels:
            for y in range(height):
                row = top if y < height // 2 else bottom
                pixels[y * stride : y * stride + len(row)] = row
    with open(geometry_file, "w") as file:
        file.write(f"{width} {height}\n")
    print(f"quadrants: {width}x{height}, stride {stride}, red/green/blue at bits {red}/{green}/{blue}")


def write_expected(width, height, out):
    top, bottom = quadrant_rows(width, bytes)
    half = height // 2
    write_image(out, width, height, top * half + bottom * (height - half))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--fb":
        fill_framebuffer(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "--expected":
        write_expected(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
