#!/usr/bin/env python3
"""host/sampler.py's summary of a window (no QEMU, no watcher): the counts
from the panel's size on, and a picture gone black after a boot's first
scene frame (a splash or chakrad's first frame) counted."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "host"))
import sampler  # noqa: E402


def window(*frames):
    """A window whose dumps were classified as FRAMES: (class, size), 0.1 s apart."""
    result = sampler.Window("boot2", "/nonexistent")
    for number, (kind, size) in enumerate(frames):
        result.taken.append(number / 10)
        result.classified.append((number / 10, kind, size))
    return result


def fields(line):
    return dict(field.split("=", 1) for field in line.split()[1:])


class SummaryTests(unittest.TestCase):
    def test_splash_into_the_scene_without_black(self):
        # The firmware's text at another size, the panel black, the splash,
        # the fade, the heart.
        summary = fields(sampler.summarize(window(
            ("text", "720x400"), ("black", "1280x800"), ("scene", "1280x800"),
            ("scene", "1280x800"), ("scene", "1280x800"))))
        self.assertEqual((summary["final_size"], summary["text_after"], summary["black_after"]), ("1280x800", "0", "1"))
        self.assertEqual((summary["first_scene_s"], summary["black_after_scene"]), ("0.2", "0"))

    def test_black_between_the_splash_and_the_scene_is_counted(self):
        summary = fields(sampler.summarize(window(
            ("black", "1280x800"), ("scene", "1280x800"), ("black", "1280x800"),
            ("black", "1280x800"), ("scene", "1280x800"))))
        self.assertEqual(summary["black_after_scene"], "2")

    def test_a_window_with_no_scene(self):
        summary = fields(sampler.summarize(window(("black", "64x48"), ("text", "64x48"))))
        self.assertEqual((summary["first_scene_s"], summary["black_after_scene"]), ("-", "0"))


if __name__ == "__main__":
    unittest.main()
