#!/usr/bin/env python3
"""lib/frames.py, the classifier of issue 30's sampled screendumps, on real
frames (host only, no QEMU):

- text: tty1's login prompt as a Debian 12 guest showed it (a crop of
  60-debian-systemd's screendump after `systemctl stop chakrad`,
  selftest/frames/login-prompt.png, 248x72, 1280x800 put back around it
  here); boot text as the same guest showed it before its kernel took the
  display (SeaBIOS's two lines in QEMU's VGA text mode, the sampler's
  first text frame of the boot window: selftest/frames/seabios.png,
  368x56, in 720x400); one console line; a screen of console lines;
- black: an all-black screen, one with a cursor block and one stray
  character on it, and QEMU's own notice that the guest shows nothing
  (one line at the centre);
- scene: chakrad's own scenes (heart, spiral, drift, calm) rendered by
  `chakrad render` at the guests' 1280x800 (the heart at 800x480 too, at
  other times; the spiral's states that write words on the screen with
  FreeType), each also dimmed to a tenth of its brightness; skipped with
  a message when there is no chakrad ($CHAKRAD, else the release builds
  .build/release or .build-vm/swift/release);
- text that is not console text stays a scene: the glyphs blurred (an
  anti-aliased edge), and the glyphs scattered off any baseline.
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
VM = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(VM))
sys.path.insert(0, os.path.join(VM, "lib"))
import frames  # noqa: E402
import images  # noqa: E402

WIDTH, HEIGHT = 1280, 800
LOGIN = os.path.join(HERE, "frames", "login-prompt.png")
SEABIOS = os.path.join(HERE, "frames", "seabios.png")


def canvas(width=WIDTH, height=HEIGHT):
    return bytearray(width * height * 3)


def paste(target, width, piece, x, y):
    piece_width, piece_height, rgb = piece
    for row in range(piece_height):
        start = ((y + row) * width + x) * 3
        target[start : start + piece_width * 3] = rgb[row * piece_width * 3 : (row + 1) * piece_width * 3]


def crop(image, x, y, width, height):
    image_width, _, rgb = image
    rows = [rgb[((y + row) * image_width + x) * 3 : ((y + row) * image_width + x + width) * 3] for row in range(height)]
    return width, height, b"".join(rows)


def find_chakrad():
    for candidate in (os.environ.get("CHAKRAD"), os.path.join(REPO, ".build", "release", "chakrad"),
                      os.path.join(REPO, ".build-vm", "swift", "release", "chakrad")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class Frames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.login = images.read_image(LOGIN)

    def assertClass(self, expected, width, height, rgb, what):
        kind, measures = frames.classify(width, height, rgb)
        self.assertEqual(kind, expected, f"{what}: {measures}")
        return measures

    def test_login_prompt_is_text(self):
        screen = canvas()
        paste(screen, WIDTH, self.login, 0, 0)
        measures = self.assertClass(frames.TEXT, WIDTH, HEIGHT, screen, "tty1's login prompt")
        # "Debian GNU/Linux 12 kiosk tty1" and "kiosk login:": about 35
        # glyph-like components on the two baselines.
        self.assertGreaterEqual(measures.on_baselines, 25)

    def test_firmware_boot_text_is_text(self):
        screen = canvas(720, 400)
        paste(screen, 720, images.read_image(SEABIOS), 0, 0)
        self.assertClass(frames.TEXT, 720, 400, screen, "SeaBIOS's boot lines")

    def test_boot_text_is_text(self):
        # A screen of console lines: the prompt's glyphs repeated down the
        # screen, as boot or shutdown messages fill it.
        screen = canvas()
        line = crop(self.login, 0, 16, self.login[0], 16)
        for y in range(0, HEIGHT - 16, 16):
            paste(screen, WIDTH, line, 0, y)
        self.assertClass(frames.TEXT, WIDTH, HEIGHT, screen, "a screen of console lines")

    def test_one_line_is_text(self):
        screen = canvas()
        paste(screen, WIDTH, crop(self.login, 0, 16, self.login[0], 16), 0, 400)
        self.assertClass(frames.TEXT, WIDTH, HEIGHT, screen, "one console line")

    def test_qemu_notice_is_black(self):
        # QEMU's own "Display output is not active." / "Guest has not
        # initialized the display (yet).": one line at the centre of a
        # black screen (made here of the prompt's first line), black: a
        # real panel is dark then. The same line at the top left is text.
        line = crop(self.login, 0, 16, 240, 16)
        for width, height in ((1280, 800), (640, 480)):
            screen = canvas(width, height)
            paste(screen, width, line, (width - 240) // 2, (height - 16) // 2)
            measures = self.assertClass(frames.BLACK, width, height, screen, f"QEMU's notice at {width}x{height}")
            self.assertTrue(measures.notice)

    def test_black(self):
        self.assertClass(frames.BLACK, WIDTH, HEIGHT, canvas(), "all black")
        screen = canvas()
        for y in range(12, 16):  # a cursor block
            screen[(y * WIDTH) * 3 : (y * WIDTH + 8) * 3] = b"\xaa" * 24
        paste(screen, WIDTH, crop(self.login, 0, 16, 8, 16), 40, 0)  # one character
        self.assertClass(frames.BLACK, WIDTH, HEIGHT, screen, "a cursor and one character")

    def test_blurred_text_is_not_console_text(self):
        # The same glyphs with a soft edge (a 3-pixel box blur): what
        # FreeType's anti-aliased text or a glow looks like. Not sharp.
        width, height, rgb = self.login
        blurred = bytearray(rgb)
        for y in range(height):
            for x in range(1, width - 1):
                for c in range(3):
                    i = (y * width + x) * 3 + c
                    blurred[i] = (rgb[i - 3] + rgb[i] + rgb[i + 3]) // 3
        screen = canvas()
        paste(screen, WIDTH, (width, height, bytes(blurred)), 0, 0)
        self.assertNotEqual(frames.classify(WIDTH, HEIGHT, screen)[0], frames.TEXT)

    def test_scattered_glyphs_are_not_text(self):
        # Glyph-sized sharp marks, each on a row of its own: no baseline.
        screen = canvas()
        glyph = crop(self.login, 0, 16, 8, 16)
        for k in range(30):
            paste(screen, WIDTH, glyph, 30 + k * 40, 10 + k * 25)
        self.assertNotEqual(frames.classify(WIDTH, HEIGHT, screen)[0], frames.TEXT)

    def test_chakrad_scenes(self):
        chakrad = find_chakrad()
        if chakrad is None:
            self.skipTest("no chakrad (set CHAKRAD, or make release-build): the scenes are not checked")
        # Each scene at the guests' 1280x800, the heart at 800x480 and at
        # other times, and the spiral's states that write words on the
        # screen (FreeType's anti-aliased text: a scene, not console text).
        renders = [[scene, "1280x800", "2.5"] for scene in ("heart", "spiral", "drift", "calm")]
        renders += [["heart", "800x480", "0"], ["heart", "800x480", "40"]]
        renders += [["spiral", "1280x800", "3", "--spiral-state", state, "--progress", progress]
                    for state, progress in (("inhale", "0.3"), ("hold", "0.5"), ("exhale", "0.8"), ("completed", "1"))]
        renders += [["spiral", "1280x800", "3", "--spiral-state", "inhale", "--progress", "0.2", "--lifted"]]
        dim = bytes(value // 10 for value in range(256))
        with tempfile.TemporaryDirectory() as directory:
            for scene, size, time, *options in renders:
                path = os.path.join(directory, "frame.ppm")
                subprocess.run([chakrad, "render", "--scene", scene, "--time", time, "--size", size, *options, "-o", path],
                               check=True, capture_output=True)
                width, height, rgb = images.read_image(path)
                what = " ".join([scene, size, f"t={time}", *options])
                with self.subTest(render=what):
                    self.assertClass(frames.SCENE, width, height, rgb, what)
                # Dimmed to a tenth (chakrad's dimming, a fade's first
                # frames): still the scene, not black.
                with self.subTest(render=what, dimmed=True):
                    self.assertClass(frames.SCENE, width, height, rgb.translate(dim), f"{what}, at a tenth")

if __name__ == "__main__":
    unittest.main()
