"""systemd's file descriptor store, played for chakrad in a guest without
systemd (docs/seams.md), shared by the continuity cases
(continuity_drm.py, continuity_fbdev.py). Tests/Scripts/continuity-harness.py
plays it on the host the same way.

A datagram socket bound to an abstract address is $NOTIFY_SOCKET; FDSTORE=1
messages' descriptors are kept under their FDNAME (one copy of a file,
however often it is sent: a file already held, by device and inode, is not
kept twice), FDSTOREREMOVE=1 closes those of a name, anything else sent
with descriptors has them closed. `start` runs the next process with the
descriptors kept at 3, 4, ... and $LISTEN_FDS, $LISTEN_FDNAMES, and
$LISTEN_PID set to its own pid by a shell shim (the pid is known only once
it runs). `flush` is a stop for good: the store's copies closed."""
import array
import os
import socket
import subprocess


class DescriptorStore:
    def __init__(self, address="chakra-continuity-notify"):
        self.address = address
        self.entries = []  # (name, fd), in the order stored
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind("\0" + address)
        self.socket.setblocking(False)

    def pump(self):
        """Takes in every message sent so far."""
        while True:
            try:
                msg, anc, _, _ = self.socket.recvmsg(4096, socket.CMSG_SPACE(253 * 4))
            except BlockingIOError:
                return
            fields = dict(line.split("=", 1) for line in msg.decode().split("\n") if "=" in line)
            fds = []
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    received = array.array("i")
                    received.frombytes(data[:len(data) - len(data) % 4])
                    fds += list(received)
            if fields.get("FDSTORE") == "1":
                for fd in fds:
                    if self._holds(fd):
                        os.close(fd)
                    else:
                        self.entries.append((fields.get("FDNAME", "stored"), fd))
            elif fields.get("FDSTOREREMOVE") == "1":
                for entry in [e for e in self.entries if e[0] == fields.get("FDNAME")]:
                    os.close(entry[1])
                    self.entries.remove(entry)
            else:
                for fd in fds:
                    os.close(fd)

    def _holds(self, fd):
        status = os.fstat(fd)
        return any((os.fstat(f).st_dev, os.fstat(f).st_ino) == (status.st_dev, status.st_ino) for _, f in self.entries)

    def names(self):
        """The names held now, in the order stored."""
        self.pump()
        return [name for name, _ in self.entries]

    def start(self, command, **popen):
        """Runs COMMAND (a list) as systemd starts a unit's next process:
        the descriptors held at 3, 4, ... with $LISTEN_*; $NOTIFY_SOCKET.
        Keyword arguments go to subprocess.Popen (stdin, stdout, ...)."""
        self.pump()
        names, fds = [n for n, _ in self.entries], [f for _, f in self.entries]
        env = dict(os.environ, NOTIFY_SOCKET="@" + self.address)
        for variable in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"):
            env.pop(variable, None)
        if fds:
            env.update(LISTEN_FDS=str(len(fds)), LISTEN_FDNAMES=":".join(names))

        def place():
            high = [os.dup(f) for f in fds]
            for i, h in enumerate(high):
                os.dup2(h, 3 + i, inheritable=True)

        shim = ["sh", "-c", 'if [ -n "$LISTEN_FDS" ]; then export LISTEN_PID=$$; fi; exec "$0" "$@"']
        return subprocess.Popen(shim + list(command), env=env, preexec_fn=place, close_fds=False, **popen)

    def flush(self):
        """A stop for good: the store's copies closed."""
        self.pump()
        for _, fd in self.entries:
            os.close(fd)
        self.entries.clear()
