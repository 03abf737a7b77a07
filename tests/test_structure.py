"""The promises of ARCHITECTURE.md, checked: small modules with a docstring each, no import cycles, the daemon
free of policy words, the product apart from its simulated world."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("ai_operator", "policies")
MAX_LINES = 400
POLICY_SCRIPTS = re.compile(r"[\u0400-\u04FF\u0900-\u097F]")  # Cyrillic (ru, kk), Devanagari (hi)


def modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            parts = path.relative_to(REPO).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def top_level_imports(path: Path, name: str, known: set[str]) -> set[str]:
    """Modules of ours imported when `name` is imported (module level, not inside functions or TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if isinstance(node, ast.Import | ast.ImportFrom) else []:
            if isinstance(sub, ast.Import):
                targets = [a.name for a in sub.names]
            elif isinstance(sub, ast.ImportFrom):
                base = sub.module or ""
                if sub.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - sub.level + 1] + ([base] if base else []))
                # `from pkg import sub` imports the submodule; `from pkg import name` reads pkg's namespace
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in sub.names]
                if name.startswith(base + "."):  # a submodule reading its own package mid-import
                    targets.append(base)
            for target in targets:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.add(target)
    return found


def test_every_module_is_small_and_says_what_it_owns() -> None:
    too_long, undocumented = [], []
    for name, path in modules().items():
        text = path.read_text()
        if len(text.splitlines()) > MAX_LINES:
            too_long.append(f"{name} ({len(text.splitlines())} lines)")
        if text.strip() and ast.get_docstring(ast.parse(text)) is None:
            undocumented.append(name)
    assert too_long == [] and undocumented == []


def test_no_import_cycle_at_import_time() -> None:
    mods = modules()
    known = set(mods)
    graph = {name: top_level_imports(path, name, known) for name, path in mods.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt):], nxt] if nxt in stack else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_the_daemon_holds_no_policy_words() -> None:
    found = [str(p.relative_to(REPO)) for p in (REPO / "ai_operator" / "daemon").rglob("*.py")
             if POLICY_SCRIPTS.search(p.read_text())]
    assert found == []


def test_the_product_does_not_import_its_simulated_world() -> None:
    """Only the CLI (which offers `demo` and `simpbx`) reaches into `ai_operator.sim`."""
    mods = modules()
    known = set(mods)
    offenders = []
    for name, path in mods.items():
        if name.startswith("ai_operator.sim") or name == "ai_operator.cli":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ai_operator.sim"):
                offenders.append(name)
            if isinstance(node, ast.Import) and any(a.name.startswith("ai_operator.sim") for a in node.names):
                offenders.append(name)
    assert offenders == [], known and offenders
