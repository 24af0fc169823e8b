"""External reference tools (tshark, tcptrace) the tests read results back with."""

import os
import shutil

import pytest


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
