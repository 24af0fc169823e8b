"""Helpers for tests that drive real processes with real signals."""

import signal
import subprocess
import time


def interrupt(proc: subprocess.Popen, timeout: float = 30) -> tuple[str, str, float]:
    """Ctrl-C ``proc`` (SIGINT) and wait for it to exit.

    Returns its remaining stdout, stderr and how many seconds it took to stop; kills
    it if it has not stopped after ``timeout`` seconds (``communicate`` then raises).
    """
    try:
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=timeout)
        return out, err, time.monotonic() - t0
    finally:
        proc.kill()
