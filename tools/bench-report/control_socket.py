"""One request to a running chakrad over its control socket (for the bench tools)."""
import json, socket


def request(path, line, timeout=30):
    """Sends `line` (a dict) as one JSON line and returns the decoded reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(json.dumps(line).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    return json.loads(data)


def start_headless(chakrad, work, size, scene, threads=None):
    """`chakrad run` on the headless output at 60 fps in directory `work`,
    once its control socket exists: (the process, the socket's path)."""
    import os, subprocess, time
    path = os.path.join(work, "control.sock")
    config = os.path.join(work, "chakra.toml")
    with open(config, "w") as f:
        f.write('[display]\noutput = "headless"\nvt = "none"\nbacklight = "none"\nfps = 60\n'
                + (f"[render]\nthreads = {threads}\n" if threads else "") + f'[control]\nsocket = "{path}"\n')
    daemon = subprocess.Popen([chakrad, "run", "--config", config, "--headless-size", size, "--scene", scene],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    return daemon, path
