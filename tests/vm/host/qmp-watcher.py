#!/usr/bin/env python3
"""Host side of the guest's QMP requests (stdlib only).

The guest cannot reach QEMU's QMP socket, which lives on the host. So the
guest helpers (tests/vm/guest/qmp, tests/vm/guest/screendump) drop request
files into the results share, and this watcher, started by run-guest.sh next
to QEMU, carries them out over QMP and answers with reply files:

    RESULTS/.vm/requests/ID.json   written by the guest (renamed into place)
        {"qmp": {"execute": ..., "arguments": ...}}   any QMP command
        {"screendump": "NAME", "device": ..., "head": ...}
        {"sample": "start", "name": "NAME"}, {"sample": "stop"}
    RESULTS/.vm/replies/ID         written here (renamed into place)
        first line "ok" or "error", then the QMP reply (JSON) or, for a
        screendump, the path of the image written

Screen dumps are PNG when this QEMU can write PNG (`format` argument of
`screendump`, QEMU >= 7.1 built with libpng), else PPM. A NAME ending in
.png or .ppm asks for that format.

"sample" begins or ends a window of screendumps at 10 Hz or more, each
classified as scene, black or text (sampler.py, which says what it
writes); the reply to "stop" is the window's summary line. With
--sample-boot NAME a window begins as soon as QEMU answers (a boot); a
window still open when QEMU exits (a reboot, a power-off) ends then.

It exits when QEMU closes the QMP connection (QEMU has exited).
"""

import argparse
import json
import os
import re
import select
import socket
import sys
import time

from sampler import Sampler

POLL_SECONDS = 0.05
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")


def log(message):
    print(f"chakra-vm: qmp-watcher: {message}", file=sys.stderr, flush=True)


class QMPConnection:
    """One QMP session over a unix socket. Owned by the watcher loop for the
    whole life of the QEMU process; asynchronous events are skipped."""

    def __init__(self, path, connect_timeout):
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.buffer = b""
        greeting = self.read_message()
        if "QMP" not in greeting:
            raise RuntimeError(f"unexpected QMP greeting: {greeting}")
        reply = self.execute({"execute": "qmp_capabilities"})
        if "return" not in reply:
            raise RuntimeError(f"qmp_capabilities failed: {reply}")

    def read_message(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("QMP connection closed")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def execute(self, command):
        self.sock.sendall(json.dumps(command).encode() + b"\n")
        while True:
            message = self.read_message()
            if "return" in message or "error" in message:
                return message

    def drain_events(self, seconds):
        """Waits up to `seconds` for input, which with no command outstanding
        can only be events: dropped. Raises EOFError once QEMU has gone."""
        readable, _, _ = select.select([self.sock], [], [], seconds)
        if readable:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("QMP connection closed")
            # Keep an incomplete last line; whole lines are events.
            self.buffer = (self.buffer + chunk).rpartition(b"\n")[2]


class Watcher:
    def __init__(self, qmp, results):
        self.qmp = qmp
        self.results = results
        self.requests = os.path.join(results, ".vm", "requests")
        self.replies = os.path.join(results, ".vm", "replies")
        self.png = None  # unknown until the first screendump
        self.sampler = Sampler(qmp, results)

    def run(self):
        try:
            while True:
                for name in sorted(os.listdir(self.requests)):
                    if name.endswith(".json"):
                        self.serve(name[: -len(".json")])
                due = self.sampler.due()
                if due == 0:
                    self.sampler.take()
                    due = self.sampler.due()
                self.qmp.drain_events(POLL_SECONDS if due is None else min(POLL_SECONDS, due))
        finally:
            # QEMU gone: the window of a reboot or power-off ends here.
            summary = self.sampler.close()
            if summary:
                log(f"sampled until QEMU exited: {summary}")

    def serve(self, request_id):
        path = os.path.join(self.requests, request_id + ".json")
        try:
            with open(path) as file:
                request = json.load(file)
            ok, payload = self.handle(request)
        except (ValueError, OSError) as error:
            ok, payload = False, f"bad request: {error}"
        os.unlink(path)
        reply = os.path.join(self.replies, request_id)
        with open(reply + ".tmp", "w") as file:
            file.write(("ok" if ok else "error") + "\n" + payload + "\n")
        os.rename(reply + ".tmp", reply)

    def handle(self, request):
        if not isinstance(request, dict):
            return False, "a request is a JSON object"
        if "qmp" in request:
            reply = self.qmp.execute(request["qmp"])
            return "return" in reply, json.dumps(reply)
        if "screendump" in request:
            return self.screendump(request)
        if request.get("sample") == "start":
            return self.sampler.start(request.get("name"))
        if request.get("sample") == "stop":
            summary = self.sampler.stop()
            return bool(summary), summary or "no sampling window is open"
        return False, f"unknown request {json.dumps(request)}"

    def screendump(self, request):
        name = request["screendump"]
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            return False, f"bad screendump name {name!r} (letters, digits, . _ -)"
        arguments = {}
        for key in ("device", "head"):
            if request.get(key) not in (None, ""):
                arguments[key] = request[key]
        if name.endswith((".png", ".ppm")):
            name, extension = name[:-4], name[-3:]
        else:
            extension = "ppm" if self.png is False else "png"
        reply = self.dump(name, extension, arguments)
        if "error" in reply and extension == "png" and self.png is None:
            log(f"no PNG screendump in this QEMU ({reply['error'].get('desc')}); using PPM")
            self.png = False
            extension = "ppm"
            reply = self.dump(name, extension, arguments)
        if "error" in reply:
            return False, json.dumps(reply)
        if extension == "png":
            self.png = True
        return True, os.path.join(self.results, f"{name}.{extension}")

    def dump(self, name, extension, arguments):
        filename = os.path.join(self.results, f"{name}.{extension}")
        arguments = dict(arguments, filename=filename)
        if extension == "png":
            arguments["format"] = "png"
        return self.qmp.execute({"execute": "screendump", "arguments": arguments})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True, help="QEMU's QMP unix socket")
    parser.add_argument("--results", required=True, help="the results directory")
    parser.add_argument("--connect-timeout", type=float, default=30)
    parser.add_argument("--sample-boot", metavar="NAME", help="begin sampling window NAME at once (a boot)")
    args = parser.parse_args()
    try:
        qmp = QMPConnection(args.socket, args.connect_timeout)
    except (OSError, RuntimeError, EOFError) as error:
        log(f"cannot connect to {args.socket}: {error}")
        return 1
    try:
        watcher = Watcher(qmp, args.results)
        if args.sample_boot:
            ok, message = watcher.sampler.start(args.sample_boot)
            if not ok:
                log(message)
                return 2
        watcher.run()
    except (EOFError, ConnectionError):  # QEMU gone (a reset when it exits mid-reply)
        return 0


if __name__ == "__main__":
    sys.exit(main())
