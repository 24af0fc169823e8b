"""The repository stands on its own: no file names a document or a path outside it.

A reader who clones the repository and nothing else must be able to follow every
reference: papers are cited by authors, title, venue and section; RFCs by number and
section; ns-2, ns-3 and Linux by their own source files; the project's modelling
decisions by its ``docs/models/*.md`` pages. This test lists every tracked text file
that names the development notes the project was built from (the specifications and
their corrections, the design and style notes) or an absolute path of a development
machine.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What leads out of the repository.
OUTSIDE = re.compile(
    r"specs/|\bDESIGN\.md\b|\bbaseline\.md\b|\bcorrections\.md\b|\bSTYLE\.md\b"
    r"|/work/|/home/[a-z]|\.\./shared\b"
    # the notes by their own names and sections (the model pages are blt.md and
    # bmcc.md too, but have no numbered sections)
    r"|\b(buc_rfcn|token_ftcp|westwood_buffer_sizing)\.md|\b(blt|bmcc)\.md §|\b[Ss]pecs? §"
)

#: This file states the patterns it looks for.
EXEMPT = {"tests/test_self_contained.py"}


def tracked() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return [f for f in out.splitlines() if f not in EXEMPT]


def test_no_file_names_a_document_or_path_outside_the_repository():
    found = []
    for name in tracked():
        path = ROOT / name
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary files, submodules
        for i, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{name}:{i}: {line.strip()[:120]}")
    assert not found, f"{len(found)} references lead out of the repository:\n" + "\n".join(
        found[:60]
    )
