"""Example scenarios shipped with ccsim (the repository's ``scenarios/`` is this
directory): ``ccsim bench`` with no file runs ``bench-dumbbell-8``.

>>> from ccsim import scenarios
>>> "dumbbell-newreno" in scenarios.names()
True
>>> scenarios.path("dumbbell-newreno").name
'dumbbell-newreno.toml'
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["names", "path"]

_DIR = Path(__file__).resolve().parent


def names() -> list[str]:
    """The bundled scenarios' names (file names without ``.toml``)."""
    return sorted(p.stem for p in _DIR.glob("*.toml"))


def path(name: str) -> Path:
    """The file of the bundled scenario ``name``."""
    p = _DIR / f"{name}.toml"
    if not p.is_file():
        raise KeyError(f"no bundled scenario {name!r}; scenarios: {', '.join(names())}")
    return p
