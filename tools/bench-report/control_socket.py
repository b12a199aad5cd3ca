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
