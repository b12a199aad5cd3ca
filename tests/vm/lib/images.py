"""Minimal RGB image files for the VM tests, stdlib only (no PIL on CI).

Reads binary PPM (P6, maxval 255) and PNG (bit depth 8, colour type RGB,
RGBA or greyscale, not interlaced: what QEMU's screendump, libpng and
browsers write for screenshots); writes PPM and PNG. An image is
(width, height, pixels) with pixels a bytes object of packed RGB rows.
PNG alpha is dropped: a screen is opaque, and screendump writes none.
"""

import itertools
import operator
import struct
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MASK = (0xFF).__and__


class ImageError(Exception):
    pass


def read_image(path):
    with open(path, "rb") as file:
        data = file.read()
    if data.startswith(PNG_SIGNATURE):
        return decode_png(data)
    if data.startswith(b"P6"):
        return decode_ppm(data)
    raise ImageError(f"{path}: neither PNG nor binary PPM (P6)")


def write_image(path, width, height, rgb):
    data = encode_png(width, height, rgb) if path.endswith(".png") else encode_ppm(width, height, rgb)
    with open(path, "wb") as file:
        file.write(data)


def decode_ppm(data):
    # Header: "P6" width height maxval, separated by whitespace, with
    # "#" comments to the end of a line; one whitespace byte before pixels.
    fields, position = [], 2
    while len(fields) < 3:
        while position < len(data) and data[position : position + 1].isspace():
            position += 1
        if data[position : position + 1] == b"#":
            position = data.index(b"\n", position) + 1
            continue
        start = position
        while position < len(data) and data[position] in b"0123456789":
            position += 1
        if start == position:
            raise ImageError("bad PPM header")
        fields.append(int(data[start:position]))
    width, height, maxval = fields
    if maxval != 255:
        raise ImageError(f"PPM maxval {maxval} (only 255 is supported)")
    pixels = data[position + 1 : position + 1 + width * height * 3]
    if len(pixels) != width * height * 3:
        raise ImageError("PPM pixel data is truncated")
    return width, height, pixels


def encode_ppm(width, height, rgb):
    return b"P6\n%d %d\n255\n" % (width, height) + bytes(rgb)


def png_chunks(data):
    position = len(PNG_SIGNATURE)
    while position + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[position : position + 8])
        yield kind, data[position + 8 : position + 8 + length]
        position += 12 + length


def decode_png(data):
    header, compressed = None, []
    for kind, body in png_chunks(data):
        if kind == b"IHDR" and len(body) == 13:
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            compressed.append(body)
    if header is None:
        raise ImageError("PNG without a valid IHDR")
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ImageError(f"PNG depth {depth}, colour type {colour}, interlace {interlace}: "
                         "only 8-bit grey, RGB or RGBA without interlacing is supported")
    try:
        raw = zlib.decompress(b"".join(compressed))
    except zlib.error as error:
        raise ImageError(f"PNG image data: {error}") from None
    rows = unfilter(raw, width * channels, height, channels)
    return width, height, to_rgb(rows, channels)


def unfilter(raw, row_bytes, height, bpp):
    """Undoes the per-row PNG filters (spec section 9.2); returns the rows."""
    if len(raw) < (row_bytes + 1) * height:
        raise ImageError("PNG image data is truncated")
    rows, previous = [], bytes(row_bytes)
    for y in range(height):
        start = y * (row_bytes + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + row_bytes])
        # Sub and Up run as C-level map/accumulate (a Python loop per byte
        # takes seconds for a 1280x800 screen); Average and Paeth are
        # sequential by nature.
        if kind == 1:  # Sub: each channel is a running sum along the row
            for channel in range(bpp):
                sums = itertools.accumulate(line[channel::bpp], operator.add)
                line[channel::bpp] = bytes(map(MASK, sums))
        elif kind == 2:  # Up
            line = bytearray(map(MASK, map(operator.add, line, previous)))
        elif kind == 3:  # Average
            for i in range(row_bytes):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(row_bytes):
                a = line[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                predictor = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + predictor) & 0xFF
        elif kind != 0:
            raise ImageError(f"PNG filter type {kind} in row {y}")
        rows.append(bytes(line))
        previous = line
    return rows


def to_rgb(rows, channels):
    data = b"".join(rows)
    if channels == 3:
        return data
    if channels == 4:
        rgb = bytearray(len(data) // 4 * 3)
        for offset in range(3):
            rgb[offset::3] = data[offset::4]
        return bytes(rgb)
    rgb = bytearray(len(data) * 3)
    for offset in range(3):
        rgb[offset::3] = data
    return bytes(rgb)


def encode_png(width, height, rgb):
    """Filter type 0 on every row: simple, and the decoder is tested with
    hand-filtered rows and with QEMU's libpng output instead."""
    row_bytes = width * 3
    raw = b"".join(b"\x00" + bytes(rgb[y * row_bytes : (y + 1) * row_bytes]) for y in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return PNG_SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
