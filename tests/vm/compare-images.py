#!/usr/bin/env python3
"""Compares two images pixel by pixel (PPM P6 or 8-bit PNG; stdlib only).

    compare-images.py A B [--tolerance N] [--max-bad-fraction F] [--diff OUT]

A pixel is bad when any of its R, G, B channels differs by more than N
(default 0). Prints the size, max |delta| and mean |delta| over all channels,
and the number of bad pixels. Exit status: 0 when the sizes match and the
fraction of bad pixels is at most F (default 0), 1 on a mismatch, 2 when an
image cannot be read. --diff writes, on a mismatch, an image (PPM or PNG by
extension) of A darkened, with the bad pixels in pure red
(after weston's visualize_image_difference).
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from images import ImageError, read_image, write_image  # noqa: E402


def channel_differences(a, b):
    """|a - b| per channel, as bytes; identical rows cost one comparison."""
    if a == b:
        return bytes(len(a))
    return bytes(abs(x - y) for x, y in zip(a, b))


def compare(a, b, tolerance):
    """Returns (max delta, mean delta, bad pixel indices)."""
    deltas = channel_differences(a, b)
    if not any(deltas):
        return 0, 0.0, []
    bad = [i // 3 for i in range(0, len(deltas), 3) if max(deltas[i : i + 3]) > tolerance]
    return max(deltas), sum(deltas) / len(deltas), bad


def visualize(rgb, bad):
    image = bytearray(value // 3 for value in rgb)
    for pixel in bad:
        image[pixel * 3 : pixel * 3 + 3] = b"\xff\x00\x00"
    return image


def main():
    parser = argparse.ArgumentParser(description="Compares two images pixel by pixel.")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--tolerance", type=int, default=0, help="largest channel delta that is still good")
    parser.add_argument("--max-bad-fraction", type=float, default=0.0, help="fraction of bad pixels allowed")
    parser.add_argument("--diff", help="write a difference image here on a mismatch")
    args = parser.parse_args()
    try:
        width_a, height_a, pixels_a = read_image(args.a)
        width_b, height_b, pixels_b = read_image(args.b)
    except (OSError, ImageError, ValueError) as error:
        print(f"compare-images: {error}", file=sys.stderr)
        return 2
    if (width_a, height_a) != (width_b, height_b):
        print(f"size mismatch: {args.a} is {width_a}x{height_a}, {args.b} is {width_b}x{height_b}")
        return 1
    largest, mean, bad = compare(pixels_a, pixels_b, args.tolerance)
    pixels = width_a * height_a
    fraction = len(bad) / pixels
    print(f"{width_a}x{height_a}: max |delta| {largest}, mean |delta| {mean:.4f}, "
          f"{len(bad)} of {pixels} pixels over tolerance {args.tolerance} ({fraction:.6f})")
    if fraction <= args.max_bad_fraction:
        return 0
    first = bad[0]
    print(f"mismatch: first bad pixel at ({first % width_a}, {first // width_a}): "
          f"{tuple(pixels_a[first * 3 : first * 3 + 3])} vs {tuple(pixels_b[first * 3 : first * 3 + 3])}; "
          f"allowed fraction {args.max_bad_fraction}")
    if args.diff:
        write_image(args.diff, width_a, height_a, visualize(pixels_a, bad))
        print(f"difference image: {args.diff}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
