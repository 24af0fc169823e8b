"""The layering of the Python package: no import loops in ``python/ccsim``, no file
longer than ``MAX_LINES`` without a stated reason.

Each module file is a node (a package's ``__init__.py`` is the package's node). An edge
is any import of another module of the package, wherever it stands: at module level,
inside a function or under ``if TYPE_CHECKING:`` — an import deferred to call time is
still a dependency, it only moves the failure from import time to a later call. Relative
(``from . import x``, ``from .x import y``) and absolute (``ccsim.x``) forms are read
alike. ``from pkg import name`` depends on the module ``pkg.name`` when there is one,
else on ``pkg``'s ``__init__`` (which defines the name). Importing a module also runs
its parent packages' ``__init__``; that is Python's, not an edge, unless a name is taken
from them. The native extension (``module-name`` in ``pyproject.toml``) is a leaf.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "ccsim"
MAX_LINES = 800


def native_modules(root: Path = ROOT) -> set[str]:
    """The compiled extension's dotted name (``ccsim._ccsim``), from pyproject.toml."""
    meta = tomllib.loads((root / "pyproject.toml").read_text())
    return {meta["tool"]["maturin"]["module-name"]}


def modules(package: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package) for every ``.py`` file under ``package``."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts.pop()
        out[".".join(parts)] = (path, is_pkg)
    return out


def import_graph(
    package: Path, native: set[str] = frozenset()
) -> dict[str, dict[str, tuple[Path, int]]]:
    """Module -> {imported module: (file, line) of the first import of it}."""
    mods = modules(package)
    top = package.name
    known = set(mods) | set(native)
    graph: dict[str, dict[str, tuple[Path, int]]] = {m: {} for m in mods}

    def ancestors(name: str) -> set[str]:
        parts = name.split(".")
        return {".".join(parts[:i]) for i in range(1, len(parts))}

    for name, (path, is_pkg) in mods.items():
        here = name.split(".") if is_pkg else name.split(".")[:-1]  # the enclosing package
        above = ancestors(name)
        edges = graph[name]

        def add(target: str | None, line: int) -> None:
            if target and target != name and target in known:
                if target not in edges or line < edges[target][1]:
                    edges[target] = (path, line)

        def longest_module(dotted: str) -> str | None:
            parts = dotted.split(".")
            while parts and ".".join(parts) not in known:
                parts.pop()
            return ".".join(parts) or None

        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] != top:
                        continue
                    target = longest_module(alias.name)
                    add(target, node.lineno)
                    parts = (target or "").split(".")
                    for i in range(1, len(parts)):  # packages on the way run their __init__
                        if ".".join(parts[:i]) not in above:
                            add(".".join(parts[:i]), node.lineno)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source.split(".")[0] != top:
                    continue
                source_mod = longest_module(source)
                if source not in above:
                    add(source_mod, node.lineno)  # the module, or a package whose __init__ runs
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    add(sub if sub in known else source_mod, node.lineno)
    return graph


def strongly_connected(graph: dict[str, dict]) -> list[list[str]]:
    """Tarjan's strongly connected components, each sorted, largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out, key=lambda c: (-len(c), c))


def a_cycle(graph: dict[str, dict], component: list[str]) -> list[str]:
    """A shortest loop through the component's first module: ``[m, ..., m]``."""
    start, members = component[0], set(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if w in members and w not in came_from:
                    came_from[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"{component} is not strongly connected")


def loops(package: Path, native: set[str] = frozenset()) -> list[str]:
    """One message per import loop: its modules and one cycle with file:line of each import."""
    graph = import_graph(package, native)
    out = []
    for comp in strongly_connected(graph):
        if len(comp) < 2:
            continue
        cycle = a_cycle(graph, comp)
        steps = []
        for a, b in zip(cycle, cycle[1:]):
            path, line = graph[a][b]
            steps.append(f"  {a} -> {b}  ({path.relative_to(package.parent)}:{line})")
        out.append(f"import loop among {', '.join(comp)}:\n" + "\n".join(steps))
    return out


def test_no_import_loop_in_the_package():
    found = loops(PACKAGE, native_modules())
    assert not found, "\n".join(found) + (
        "\nMove what both sides need into a lower module; do not defer the import."
    )


def test_the_check_finds_loops_through_lazy_relative_and_absolute_imports(tmp_path):
    pkg = tmp_path / "ccsim"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from ccsim.a import f\n",
        "a.py": "def f():\n    from .b import g\n    return g()\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ccsim import c\n",
        "c.py": "import ccsim.sub.d\n",
        "sub/__init__.py": "",
        "sub/d.py": "from .. import a\nfrom . import e\n",
        "sub/e.py": "from ccsim import _ccsim\n",  # the native leaf, not the package
        "leaf.py": "import ccsim.sub\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    (found,) = loops(pkg, {"ccsim._ccsim"})
    assert found.startswith("import loop among ccsim.a, ccsim.b, ccsim.c, ccsim.sub.d:")
    assert "ccsim.a -> ccsim.b  (ccsim/a.py:2)" in found
    assert "ccsim.sub.d -> ccsim.a  (ccsim/sub/d.py:1)" in found
    # a name taken from the package's __init__ is an edge to it
    (pkg / "sub" / "e.py").write_text("from ccsim import f\n")
    (found,) = loops(pkg, {"ccsim._ccsim"})
    assert found.startswith("import loop among ccsim, ccsim.a, ccsim.b, ccsim.c, ccsim.sub.d, ")
    # cut at b: no loop is left
    (pkg / "sub" / "e.py").write_text("")
    (pkg / "b.py").write_text("def g():\n    return 1\n")
    assert loops(pkg, {"ccsim._ccsim"}) == []


def test_theory_imports_nothing_else_of_ccsim():
    """``ccsim.theory`` is plain Python over ``math``: it stays usable on its own."""
    graph = import_graph(PACKAGE, native_modules())
    outside = {
        f"{m} -> {t}"
        for m, targets in graph.items()
        if m == "ccsim.theory" or m.startswith("ccsim.theory.")
        for t in targets
        if t != "ccsim.theory" and not t.startswith("ccsim.theory.")
    }
    assert not outside, sorted(outside)


def test_no_file_over_the_limit_without_a_reason():
    """A module past ``MAX_LINES`` lines is asking to be split; one that must stay whole
    says why in a line of its module docstring starting with ``Length:``."""
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        n = len(text.splitlines())
        if n <= MAX_LINES:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if not any(line.strip().startswith("Length:") for line in doc.splitlines()):
            long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not long, (
        f"files over {MAX_LINES} lines (split them by concern, or give the reason in a "
        f"'Length:' line of the module docstring): {', '.join(long)}"
    )
