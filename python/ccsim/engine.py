"""Which engine produced a result: the engine fingerprint.

A result is only as current as the code that computed it. :func:`fingerprint` names
that code: the ccsim version, a hash of the Rust sources taken when the extension was
built (``crates/ccsim-core``, ``crates/ccsim-py``, the Cargo manifests and lock file;
see ``crates/ccsim-py/build.rs``) and a hash of this package's Python sources, read
where they are installed. Sweeps mix it into every point id and record it with every
point, so after any change to a model the points are computed again instead of being
reused, and ``report.md`` says which engine produced each point.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from ccsim import _ccsim

__all__ = ["fingerprint", "python_source_hash"]


def python_source_hash(root: str | Path | None = None) -> str:
    """SHA-256 (hex) of every ``.py`` file of the package under ``root``.

    Paths are relative and line endings normalized, so the same sources hash alike
    wherever and however they are installed.
    """
    root = Path(root) if root is not None else Path(__file__).resolve().parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py"), key=lambda q: q.relative_to(root).as_posix()):
        text = p.read_bytes().replace(b"\r", b"")
        h.update(p.relative_to(root).as_posix().encode())
        h.update(len(text).to_bytes(8, "little"))
        h.update(text)
    return h.hexdigest()


@functools.cache
def fingerprint() -> str:
    """The engine fingerprint: ``"<version>+<rust hash>.<python hash>"``.

    Examples
    --------
    >>> import ccsim
    >>> fp = ccsim.fingerprint()
    >>> fp.startswith(ccsim.__version__ + "+") and len(fp.split("+")[1]) == 25
    True
    """
    return f"{_ccsim.__version__}+{_ccsim.__engine_source__[:12]}.{python_source_hash()[:12]}"
