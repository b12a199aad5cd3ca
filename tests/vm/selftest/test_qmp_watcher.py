#!/usr/bin/env python3
"""host/qmp-watcher.py with the guest helpers guest/qmp and guest/screendump,
against a fake QMP server on a unix socket (host only, no QEMU).

The fake speaks the parts of QMP the watcher uses: the greeting,
qmp_capabilities, events sent at awkward moments, errors, and a screendump
that, like QEMU < 7.1, rejects the "format" argument, so the PPM fallback
is exercised."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
VM = os.path.dirname(HERE)
EVENT = {"event": "RTC_CHANGE", "data": {"offset": 0}, "timestamp": {"seconds": 1, "microseconds": 0}}


class FakeQMP(threading.Thread):
    """Serves one connection; records the commands it received."""

    def __init__(self, path, png=True):
        super().__init__(daemon=True)
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.png = png
        self.received = []
        self.frame = b"P6\n1 1\n255\n\x01\x02\x03"
        self.closed = threading.Event()

    def reply(self, command):
        name, arguments = command.get("execute"), command.get("arguments", {})
        if name == "qmp_capabilities":
            return {"return": {}}
        if name == "query-status":
            return {"return": {"status": "running", "running": True}}
        if name == "screendump":
            if "format" in arguments and not self.png:
                return {"error": {"class": "GenericError", "desc": "Parameter 'format' is unexpected"}}
            with open(arguments["filename"], "wb") as file:
                file.write(self.frame)
            return {"return": {}}
        return {"error": {"class": "CommandNotFound", "desc": f"The command {name} has not been found"}}

    def run(self):
        connection, _ = self.server.accept()
        stream = connection.makefile("rwb")
        send = lambda message: (stream.write(json.dumps(message).encode() + b"\r\n"), stream.flush())  # noqa: E731
        send({"QMP": {"version": {}, "capabilities": []}})
        for line in stream:
            if self.closed.is_set():
                break
            command = json.loads(line)
            self.received.append(command)
            send(EVENT)  # an event before every reply: the watcher must skip it
            send(self.reply(command))
        connection.close()

    def stop(self):
        self.server.close()


class WatcherTest(unittest.TestCase):
    def setUp(self):
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.results = directory.name
        for name in ("requests", "replies"):
            os.makedirs(os.path.join(self.results, ".vm", name))
        self.socket = os.path.join(self.results, ".vm", "qmp.sock")

    def start(self, png=True, frame=None, *options):
        self.qmp = FakeQMP(self.socket, png)
        if frame is not None:
            self.qmp.frame = frame
        self.qmp.start()
        self.watcher = subprocess.Popen([sys.executable, os.path.join(VM, "host", "qmp-watcher.py"),
                                         "--socket", self.socket, "--results", self.results, *options])
        self.addCleanup(self.stop)

    def stop(self):
        self.watcher.kill()
        self.watcher.wait()
        self.qmp.stop()

    def guest(self, *command, timeout="10"):
        env = dict(os.environ, CHAKRA_RESULTS=self.results, CHAKRA_VM_QMP_TIMEOUT=timeout)
        result = subprocess.run([os.path.join(VM, "guest", command[0]), *command[1:]],
                                env=env, capture_output=True, text=True, timeout=30)
        return result.returncode, result.stdout.strip(), result.stderr.strip()

    def test_qmp_commands_and_errors(self):
        self.start()
        status, output, _ = self.guest("qmp", "query-status")
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(output), {"return": {"status": "running", "running": True}})
        status, output, _ = self.guest("qmp", '{"execute": "query-status", "arguments": {}}')
        self.assertEqual(status, 0)
        status, output, _ = self.guest("qmp", '{"execute": "device_add"}')
        self.assertEqual(status, 1)
        self.assertEqual(json.loads(output)["error"]["class"], "CommandNotFound")
        status, output, _ = self.guest("qmp", "{not json")
        self.assertEqual(status, 1)
        self.assertIn("bad request", output)
        self.assertEqual(os.listdir(os.path.join(self.results, ".vm", "replies")), [])

    def test_screendump_png_then_forced_ppm(self):
        self.start(png=True)
        status, output, _ = self.guest("screendump", "screen")
        self.assertEqual((status, output), (0, os.path.join(self.results, "screen.png")))
        self.assertEqual(self.qmp.received[-1]["arguments"],
                         {"filename": os.path.join(self.results, "screen.png"), "format": "png"})
        status, output, _ = self.guest("screendump", "other.ppm", "video0", "1")
        self.assertEqual((status, output), (0, os.path.join(self.results, "other.ppm")))
        self.assertEqual(self.qmp.received[-1]["arguments"],
                         {"filename": os.path.join(self.results, "other.ppm"), "device": "video0", "head": 1})

    def test_screendump_falls_back_to_ppm(self):
        self.start(png=False)
        status, output, _ = self.guest("screendump", "screen")
        self.assertEqual((status, output), (0, os.path.join(self.results, "screen.ppm")))
        self.assertTrue(os.path.exists(os.path.join(self.results, "screen.ppm")))
        status, output, _ = self.guest("screendump", "forced.png")
        self.assertEqual(status, 1)

    def test_bad_names_are_refused_in_the_guest(self):
        self.start()
        for name in ("../escape", ".hidden", "a b", 'quote"'):
            with self.subTest(name=name):
                self.assertEqual(self.guest("screendump", name)[0], 2)

    def test_no_watcher_times_out_clearly(self):
        status, _, error = self.guest("qmp", "query-status", timeout="1")
        self.assertEqual(status, 2)
        self.assertIn("no reply from the host's QMP watcher in 1s", error)
        self.assertEqual(os.listdir(os.path.join(self.results, ".vm", "requests")), [])
        env = {k: v for k, v in os.environ.items() if k != "CHAKRA_RESULTS"}
        result = subprocess.run([os.path.join(VM, "guest", "qmp"), "query-status"], env=env,
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("not inside a guest", result.stderr)

    def summary(self, line):
        name, *fields = line.split()
        return name, dict(field.split("=", 1) for field in fields)

    def test_sampling_window(self):
        # A black 64x48 screen: every frame of the window is black, taken
        # at 10 Hz or more, and nothing is left in the scratch directory.
        self.start(True, b"P6\n64 48\n255\n" + bytes(64 * 48 * 3))
        status, output, _ = self.guest("qmp", '{"execute": "query-status"}')
        self.assertEqual(status, 0)
        status, output, _ = self.sample("start", "restart")
        self.assertEqual(status, 0, output)
        time.sleep(1.2)
        status, output, _ = self.sample("stop")
        self.assertEqual(status, 0, output)
        name, fields = self.summary(output)
        self.assertEqual(name, "restart")
        self.assertGreaterEqual(int(fields["frames"]), 8)
        self.assertEqual(fields["frames"], fields["black"])
        self.assertEqual((fields["scene"], fields["text"], fields["final_size"]), ("0", "0", "64x48"))
        self.assertGreaterEqual(float(fields["hz"]), 10)
        with open(os.path.join(self.results, "samples.txt")) as file:
            self.assertEqual(file.read(), output + "\n")
        self.assertTrue(os.path.exists(os.path.join(self.results, "samples", "restart-first-black-64x48.png")))
        self.assertTrue(os.path.exists(os.path.join(self.results, "samples", "restart.timeline")))
        dumps = [c["arguments"]["filename"] for c in self.qmp.received if c.get("execute") == "screendump"]
        self.assertGreaterEqual(len(dumps), 8)
        self.assertFalse(any(os.path.exists(path) for path in dumps))
        self.assertFalse(any(path.startswith(self.results) for path in dumps))
        status, output, _ = self.sample("stop")
        self.assertEqual((status, output), (1, "no sampling window is open"))
        status, output, _ = self.sample("start", "../bad")
        self.assertEqual(status, 1)

    def test_boot_window_ends_with_qemu(self):
        # --sample-boot: from the connection until QEMU goes away.
        self.start(True, b"P6\n2 1\n255\n\xff\xff\xff\xff\xff\xff", "--sample-boot", "boot")
        time.sleep(1)
        self.qmp.closed.set()
        self.guest("qmp", "query-status", timeout="2")  # (one more line, then the fake hangs up)
        self.watcher.wait(timeout=20)
        with open(os.path.join(self.results, "samples.txt")) as file:
            name, fields = self.summary(file.read().strip())
        self.assertEqual(name, "boot")
        self.assertGreaterEqual(int(fields["scene"]), 5)
        self.assertEqual(fields["frames"], fields["scene"])
        # A boot window keeps its first scene frame (the splash, where
        # Plymouth runs); other windows keep only black and text.
        self.assertTrue(os.path.exists(os.path.join(self.results, "samples", "boot-first-scene-2x1.png")))

    def sample(self, *words):
        request = {"sample": words[0]}
        if len(words) > 1:
            request["name"] = words[1]
        env = dict(os.environ, CHAKRA_RESULTS=self.results, CHAKRA_VM_QMP_TIMEOUT="20")
        script = 'source "$1"; vm_request "$2"'
        result = subprocess.run(["bash", "-c", script, "bash", os.path.join(VM, "guest", "request.sh"), json.dumps(request)],
                                env=env, capture_output=True, text=True, timeout=60)
        return result.returncode, result.stdout.strip(), result.stderr.strip()


if __name__ == "__main__":
    unittest.main()
