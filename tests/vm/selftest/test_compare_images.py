#!/usr/bin/env python3
"""compare-images.py and lib/images.py on small crafted images (host only).

The PNG files are built here by a separate, naive encoder that applies each
filter type by its definition in the PNG spec, so the decoder's unfiltering
is checked against the spec rather than against itself."""

import os
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "..", "compare-images.py")
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import images  # noqa: E402


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def filter_row(kind, row, previous, bpp):
    out = bytearray()
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = previous[i]
        c = previous[i - bpp] if i >= bpp else 0
        predictor = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out.append((x - predictor) % 256)
    return bytes([kind]) + bytes(out)


def png(width, height, pixels, colour=2, filters=(0,)):
    """pixels: raw samples (1, 3 or 4 per pixel by colour type); row y uses
    filters[y % len(filters)]."""
    bpp = {0: 1, 2: 3, 6: 4}[colour]
    stride = width * bpp
    raw, previous = b"", bytes(stride)
    for y in range(height):
        row = pixels[y * stride : (y + 1) * stride]
        raw += filter_row(filters[y % len(filters)], row, previous, bpp)
        previous = row

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    data = zlib.compress(raw)
    # Two IDAT chunks: the decoder must join them.
    return (images.PNG_SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", data[:5])
            + chunk(b"IDAT", data[5:]) + chunk(b"IEND", b""))


# 5x4 pixels with values that make every filter's arithmetic wrap and differ.
WIDTH, HEIGHT = 5, 4
RGB = bytes((x * 57 + y * 101 + c * 33 + (x * y * 13)) % 256
            for y in range(HEIGHT) for x in range(WIDTH) for c in range(3))


class CompareImagesTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def path(self, name, data):
        path = os.path.join(self.directory.name, name)
        with open(path, "wb") as file:
            file.write(data)
        return path

    def compare(self, a, b, *options):
        result = subprocess.run([sys.executable, COMPARE, a, b, *options], capture_output=True, text=True)
        return result.returncode, result.stdout + result.stderr

    def test_png_filters_rgb_rgba_grey_decode_to_the_same_pixels(self):
        reference = self.path("reference.ppm", b"P6\n%d %d\n255\n" % (WIDTH, HEIGHT) + RGB)
        rgba = b"".join(RGB[i : i + 3] + bytes([i % 256]) for i in range(0, len(RGB), 3))
        for kind in range(5):
            for colour, pixels in ((2, RGB), (6, rgba)):
                with self.subTest(filter=kind, colour=colour):
                    path = self.path(f"f{kind}-{colour}.png", png(WIDTH, HEIGHT, pixels, colour, (kind,)))
                    self.assertEqual(images.read_image(path), (WIDTH, HEIGHT, RGB))
                    self.assertEqual(self.compare(path, reference)[0], 0)
        mixed = self.path("mixed.png", png(WIDTH, HEIGHT, RGB, 2, (4, 1, 3, 2)))
        self.assertEqual(images.read_image(mixed)[2], RGB)
        grey = bytes(range(0, 200, 10))
        width, height, pixels = images.read_image(self.path("grey.png", png(5, 4, grey, 0, (1, 4))))
        self.assertEqual(pixels, bytes(v for v in grey for _ in range(3)))

    def test_ppm_header_with_comments_and_our_writers(self):
        path = self.path("c.ppm", b"P6 # made by hand\n# another\n5\n4 255\n" + RGB)
        self.assertEqual(images.read_image(path), (WIDTH, HEIGHT, RGB))
        for name in ("w.ppm", "w.png"):
            written = os.path.join(self.directory.name, name)
            images.write_image(written, WIDTH, HEIGHT, RGB)
            self.assertEqual(images.read_image(written), (WIDTH, HEIGHT, RGB))

    def test_identical_images_match(self):
        a = self.path("a.ppm", images.encode_ppm(WIDTH, HEIGHT, RGB))
        status, output = self.compare(a, a)
        self.assertEqual(status, 0)
        self.assertIn("max |delta| 0, mean |delta| 0.0000, 0 of 20 pixels", output)

    def test_tolerance_and_bad_fraction(self):
        changed = bytearray(RGB)
        changed[3 * 7 + 1] = (changed[3 * 7 + 1] + 3) % 256  # pixel (2, 1), green +3
        changed[3 * 12 + 2] = (changed[3 * 12 + 2] - 1) % 256  # pixel (2, 2), blue -1
        a = self.path("a.ppm", images.encode_ppm(WIDTH, HEIGHT, RGB))
        b = self.path("b.ppm", images.encode_ppm(WIDTH, HEIGHT, changed))
        status, output = self.compare(a, b)
        self.assertEqual(status, 1)
        self.assertIn("max |delta| 3, mean |delta| 0.0667, 2 of 20 pixels over tolerance 0", output)
        self.assertIn("first bad pixel at (2, 1)", output)
        self.assertEqual(self.compare(a, b, "--tolerance", "2")[0], 1)
        status, output = self.compare(a, b, "--tolerance", "3")
        self.assertEqual(status, 0, output)
        self.assertEqual(self.compare(a, b, "--max-bad-fraction", "0.1")[0], 0)
        self.assertEqual(self.compare(a, b, "--max-bad-fraction", "0.09")[0], 1)

    def test_diff_image_marks_bad_pixels_red(self):
        changed = bytearray(RGB)
        changed[0] ^= 0x80
        a = self.path("a.ppm", images.encode_ppm(WIDTH, HEIGHT, RGB))
        b = self.path("b.png", images.encode_png(WIDTH, HEIGHT, changed))
        diff = os.path.join(self.directory.name, "diff.ppm")
        self.assertEqual(self.compare(a, b, "--diff", diff)[0], 1)
        _, _, pixels = images.read_image(diff)
        self.assertEqual(pixels[:3], b"\xff\x00\x00")
        self.assertEqual(pixels[3:6], bytes(v // 3 for v in RGB[3:6]))

    def test_size_mismatch_and_unreadable_input(self):
        a = self.path("a.ppm", images.encode_ppm(WIDTH, HEIGHT, RGB))
        b = self.path("b.ppm", images.encode_ppm(HEIGHT, WIDTH, RGB))
        status, output = self.compare(a, b)
        self.assertEqual(status, 1)
        self.assertIn("size mismatch", output)
        self.assertEqual(self.compare(a, self.path("x.txt", b"hello"))[0], 2)
        self.assertEqual(self.compare(a, os.path.join(self.directory.name, "missing.ppm"))[0], 2)
        truncated = self.path("t.ppm", images.encode_ppm(WIDTH, HEIGHT, RGB)[:-1])
        self.assertEqual(self.compare(a, truncated)[0], 2)
        interlaced = bytearray(png(WIDTH, HEIGHT, RGB))
        interlaced[28] = 1  # IHDR interlace method (the CRC is not checked)
        status, output = self.compare(a, self.path("i.png", bytes(interlaced)))
        self.assertEqual(status, 2)
        self.assertIn("interlace", output)


if __name__ == "__main__":
    unittest.main()
