"""Helpers for tests that drive real processes with real signals."""

import signal
import subprocess
import time


def sigint_default() -> None:
    """``preexec_fn`` for a child that must see Ctrl-C as a user's terminal sends it.

    A non-interactive shell starts background jobs with SIGINT ignored, children inherit
    that, and a Python started with SIGINT ignored installs no KeyboardInterrupt handler:
    a test suite launched in the background would then see every Ctrl-C test hang.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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
