"""No function longer than ``MAX_LINES`` lines outside tests without a stated reason.

A long function is usually a reader or builder doing several things one after the
other; split it by concern into named helpers. One that would only get worse split says
why in a comment line directly above its definition (among its doc comments, attributes
or decorators): ``// long: <reason>`` in Rust, ``# long: <reason>`` in Python.

Rust (``crates/ccsim-core/src``, ``crates/ccsim-py/src``): a function runs from its
``fn`` line to the first later line holding only ``}`` at the ``fn`` line's indentation
(rustfmt's layout); ``#[cfg(test)]`` items and ``tests.rs`` files are left out. Python
(``python/ccsim``): ``end_lineno - lineno`` of each (nested or not) ``def``, by ``ast``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUST = [ROOT / "crates" / "ccsim-core" / "src", ROOT / "crates" / "ccsim-py" / "src"]
PYTHON = [ROOT / "python" / "ccsim"]
MAX_LINES = 100

FN = re.compile(
    r"^(?P<indent>\s*)(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?"
    r"(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?fn\s+(?P<name>\w+)"
)
CFG_TEST = re.compile(r"^\s*#\[cfg\(test\)\]\s*$")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _item_end(lines: list[str], start: int) -> int | None:
    """Index of the line closing the braced item opened at ``start``: the first later line
    that is only ``}`` at the same indentation, once the head (signature) has ended in
    ``{``; None for an item without a body of its own lines (``fn f();``, ``mod m;``, a
    one-line ``fn``)."""
    indent = _indent(lines[start])
    for i in range(start, len(lines)):
        head = lines[i].rstrip()
        if head.endswith("{"):
            break
        if head.endswith(";") or head.endswith("}"):
            return None
    else:
        return None
    for j in range(i + 1, len(lines)):
        if lines[j].rstrip() == indent + "}":
            return j
    return None


def _reason(lines: list[str], start: int, marker: str) -> bool:
    """Whether the comment, doc-comment, attribute or decorator lines directly above
    ``start`` hold a line ``<marker> long: <reason>``."""
    i = start - 1
    while i >= 0:
        s = lines[i].strip()
        if s.startswith(marker) or s.startswith("#[") or s.startswith("@"):
            if re.match(re.escape(marker) + r"\s*long:\s*\S", s):
                return True
            i -= 1
            continue
        break
    return False


def rust_functions(path: Path) -> list[tuple[str, int, int, bool]]:
    """(name, first line, line count, has a reason) of each non-test function of a file."""
    if path.name == "tests.rs":
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    skip_until = -1
    pending_cfg_test = False
    for i, line in enumerate(lines):
        if i <= skip_until:
            continue
        if CFG_TEST.match(line):
            pending_cfg_test = True
            continue
        s = line.strip()
        if pending_cfg_test:
            if s.startswith("#[") or s.startswith("//"):
                continue
            pending_cfg_test = False
            end = _item_end(lines, i)
            if end is not None:
                skip_until = end  # the whole test item (module, impl or fn)
            continue
        m = FN.match(line)
        if not m:
            continue
        end = _item_end(lines, i)
        if end is None:
            continue
        out.append((m["name"], i + 1, end - i + 1, _reason(lines, i, "//")))
    return out


def python_functions(path: Path) -> list[tuple[str, int, int, bool]]:
    """(name, first line, line count, has a reason) of each function of a module."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    out = []
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            n = node.end_lineno - node.lineno
            out.append((node.name, node.lineno, n, _reason(lines, first - 1, "#")))
    return out


def long_functions() -> list[tuple[str, int, bool]]:
    """(``path:line name``, line count, has a reason) of every function over the limit."""
    found = []
    for roots, glob, read in ((RUST, "*.rs", rust_functions), (PYTHON, "*.py", python_functions)):
        for root in roots:
            for path in sorted(root.rglob(glob)):
                for name, line, n, reason in read(path):
                    if n > MAX_LINES:
                        found.append((f"{path.relative_to(ROOT)}:{line} {name}", n, reason))
    return found


def test_no_function_over_the_limit_without_a_reason():
    bare = [f"{where} ({n} lines)" for where, n, reason in long_functions() if not reason]
    assert not bare, (
        f"functions over {MAX_LINES} lines (split them by concern into named helpers, or "
        f"say why they stay whole in a '// long: <reason>' / '# long: <reason>' comment "
        f"directly above):\n  " + "\n  ".join(bare)
    )


def test_the_rust_scan(tmp_path):
    body = "\n".join(f"        let x{i} = {i};" for i in range(MAX_LINES))
    text = f"""
impl A {{
    // long: one table, read in order
    pub(crate) fn long_with_reason(
        &self,
    ) -> u32 {{
{body}
    }}

    fn long_bare(&self) {{
{body}
    }}

    fn short(&self) -> u32 {{ 1 }}
    fn decl(&self);
}}

#[cfg(test)]
mod tests {{
    fn long_test() {{
{body}
    }}
}}
"""
    p = tmp_path / "a.rs"
    p.write_text(text)
    found = {name: (n, reason) for name, _, n, reason in rust_functions(p)}
    assert found == {
        "long_with_reason": (MAX_LINES + 4, True),
        "long_bare": (MAX_LINES + 2, False),
    }


def test_the_python_scan(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    p = tmp_path / "a.py"
    p.write_text(
        f"# long: one table\n@staticmethod\ndef reasoned():\n{body}\n\n\n"
        f"def bare():\n{body}\n\n\ndef short():\n    return 1\n"
    )
    found = {name: (n, reason) for name, _, n, reason in python_functions(p)}
    assert found == {
        "reasoned": (MAX_LINES, True),
        "bare": (MAX_LINES, False),
        "short": (1, False),
    }
