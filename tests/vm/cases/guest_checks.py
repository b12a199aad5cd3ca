"""What the Python guest halves of 47-continuity-drm, 48-splash-takeover
and 49-continuity-fbdev share: their checks, printed as the "ok: ..." and
"FAIL: ..." lines the host reads and counted for the exit status, and the
logs of the chakrad processes they start (RESULTS/NAME.log), waited on for
a line."""

import os
import sys
import time

RESULTS = os.environ["CHAKRA_RESULTS"]
failures = 0


def check(message, ok):
    global failures
    print(("ok: " if ok else "FAIL: ") + message, flush=True)
    if not ok:
        failures += 1


def finish(what):
    """Ends the guest half: how many WHAT checks failed, and the status."""
    print("%d %s check(s) failed" % (failures, what))
    sys.exit(1 if failures else 0)


def log_text(name):
    with open(os.path.join(RESULTS, name + ".log")) as f:
        return f.read()


def wait_until(condition, seconds, interval=0.1):
    """CONDITION true within SECONDS (asked every INTERVAL seconds)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()


def wait_log(name, text, seconds=30, interval=0.1):
    """TEXT in process NAME's log within SECONDS."""
    return wait_until(lambda: text in log_text(name), seconds, interval)
