"""Files written with a recorded size and SHA-256, read back verified: what lets a saved
run (:meth:`ccsim.Results.load`, its ``manifest.json``) and the result store
(:mod:`ccsim.store`) tell an intact file from a missing, truncated or altered one."""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["digest", "read_checked"]


def digest(data: bytes) -> str:
    """SHA-256 of ``data``, in hex."""
    return hashlib.sha256(data).hexdigest()


def read_checked(path: Path, size: int | None, sha256: str | None) -> tuple[bytes, str | None]:
    """The bytes of ``path`` and why they are not what was recorded (``None`` if they are)."""
    try:
        if path.is_symlink() or not path.is_file():
            return b"", "missing"
        data = path.read_bytes()
    except OSError as exc:
        return b"", f"unreadable ({exc.strerror})"
    if size is not None and len(data) != size:
        return data, f"{len(data)} bytes instead of {size} (truncated or replaced)"
    if sha256 and digest(data) != sha256:
        return data, "altered (checksum mismatch: the file changed since it was written)"
    return data, None
