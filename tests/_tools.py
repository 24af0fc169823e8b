"""External reference tools the tests compare with or read results back with (ns-2.35,
tshark, tcptrace)."""

import os
import shutil

import pytest

#: A test that runs ns-2.35: skipped where the binary ``ns`` is not installed.
needs_ns = pytest.mark.skipif(
    shutil.which("ns") is None, reason="ns-2 is not installed (apt-get install ns2): skipped"
)


def require(exe: str, package: str) -> str:
    """Path of `exe`; skips the test where it is missing, fails in CI (CCSIM_CI_TOOLS=1),
    where .ci/test installs Debian's `package`."""
    path = shutil.which(exe)
    if path is None and os.environ.get("CCSIM_CI_TOOLS") == "1":
        pytest.fail(
            f"{exe} is not installed: .ci/test installs it in CI (apt-get install {package})"
        )
    if path is None:
        pytest.skip(f"{exe} is not installed (Debian package {package})")
    return path
