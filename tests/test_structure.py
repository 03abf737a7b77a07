"""The promises of ARCHITECTURE.md, checked: small modules with a docstring each, no import cycles (not even
through an import inside a function), the package arrows that must never exist, the daemon free of policy words.

Every import counts, wherever it is written: at module level, inside a function (an import deferred to a call is
still a dependency), and for the arrows also under `TYPE_CHECKING` (a type is a dependency of the design too)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("ai_operator", "policies")
MAX_LINES = 400
POLICY_SCRIPTS = re.compile(r"[\u0400-\u04FF\u0900-\u097F]")  # Cyrillic (ru, kk), Devanagari (hi)

# What a policy may import of the runtime: the contract, and pure helpers named here with why (no I/O, no state,
# nothing of the runtime behind them: `test_a_pure_helper_a_policy_may_import_stays_pure` checks the last part).
POLICY_MAY_IMPORT = {
    "ai_operator.dialogue": "the contract",
    "ai_operator.kb.relevance": "pure text scoring with the policy's own lexicon (its knowledge base's scorer)",
    "ai_operator.kb.morphology": "pure word analysis: Russian lemmas (pymorphy3's dictionary, loaded once)",
    "ai_operator.kb.kazakh": "pure word analysis: Kazakh stems",
    "ai_operator.kb.classifier": "the learned question classifier's model (numpy), read from the policy's own file",
}
# Configuration knows nothing of the runtime but the provider registry's names: a provider name is the value of a
# declared key (`STT_PROVIDER`, `ROUTE_<NAME>_STT`), so it is checked when the file is read, with the registered
# names in the one error line, at start and at reload alike. The registry is a table: it imports configuration
# only for type checking and loads its provider modules by name on first use, so no cycle runs through it.
CONFIG_MAY_IMPORT = {"ai_operator.providers.registry"}


def modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            parts = path.relative_to(REPO).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def imports(path: Path, name: str, known: set[str], *, type_checking: bool) -> set[str]:
    """Modules of ours that `name` imports anywhere (module level and inside functions); those imported only for
    type checking too when `type_checking`."""
    tree = ast.parse(path.read_text())
    skipped: set[int] = set()
    if not type_checking:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skipped.update(id(sub) for sub in ast.walk(node))
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for sub in ast.walk(tree):
        if id(sub) in skipped:
            continue
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
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph(*, type_checking: bool) -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports(path, name, known, type_checking=type_checking) for name, path in mods.items()}


def under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_every_module_is_small_and_says_what_it_owns() -> None:
    too_long, undocumented = [], []
    for name, path in modules().items():
        text = path.read_text()
        if len(text.splitlines()) > MAX_LINES:
            too_long.append(f"{name} ({len(text.splitlines())} lines)")
        if text.strip() and ast.get_docstring(ast.parse(text)) is None:
            undocumented.append(name)
    assert too_long == [] and undocumented == []


def test_no_import_cycle_even_through_an_import_inside_a_function() -> None:
    """An import deferred into a function hides a cycle from Python, not from the design."""
    edges = graph(type_checking=False)
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt):], nxt] if nxt in stack else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_the_daemon_holds_no_policy_words() -> None:
    found = [str(p.relative_to(REPO)) for p in (REPO / "ai_operator" / "daemon").rglob("*.py")
             if POLICY_SCRIPTS.search(p.read_text())]
    assert found == []


# (importer, imported, except): no module under `importer` imports one under `imported` (unless it is an `except`)
NEVER = {
    "a policy depends on the contract alone": ("policies", "ai_operator", set(POLICY_MAY_IMPORT)),
    "the contract imports nothing of ours": ("ai_operator.dialogue", "ai_operator", set()),
    "the contract knows no policy": ("ai_operator.dialogue", "policies", set()),
    "configuration knows no policy": ("ai_operator.config", "policies", set()),
    "configuration knows nothing of the runtime": ("ai_operator.config", "ai_operator", CONFIG_MAY_IMPORT),
    "the media plane knows no daemon": ("ai_operator.media", "ai_operator.daemon", set()),
    "the ARI client knows no daemon": ("ai_operator.ari", "ai_operator.daemon", set()),
    "speech knows no policy": ("ai_operator.speech", "policies", set()),
    "the knowledge base knows no provider (it reads the OpenAI account by key)": ("ai_operator.kb", "ai_operator.providers", set()),
    "the product does not import its simulated world": ("ai_operator", "ai_operator.sim", set()),
}
# Who may cross an arrow anyway: the simulated world itself, and the CLI, which offers `demo` and `simpbx`.
NEVER_EXEMPT = {"the product does not import its simulated world": ("ai_operator.sim", "ai_operator.cli")}


@pytest.mark.parametrize("rule", sorted(NEVER))
def test_an_arrow_that_must_never_exist(rule: str) -> None:
    importer, imported, allowed = NEVER[rule]
    exempt = NEVER_EXEMPT.get(rule, ())
    found = sorted(
        f"{name} -> {target}"
        for name, targets in graph(type_checking=True).items()
        if under(name, importer) and not any(under(name, e) for e in exempt)
        for target in targets
        if under(target, imported) and not under(target, importer) and target not in allowed
    )
    assert found == [], rule


def test_a_pure_helper_a_policy_may_import_stays_pure() -> None:
    """What a policy may import of the runtime reaches, through its own imports, nothing but its own package."""
    edges = graph(type_checking=True)
    reached: dict[str, list[str]] = {}
    for helper in POLICY_MAY_IMPORT:
        package, todo = helper.rpartition(".")[0], [helper]
        seen: set[str] = set()
        while todo:
            for nxt in edges[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        outside = sorted(m for m in seen if not under(m, package) and m not in POLICY_MAY_IMPORT)
        if outside:
            reached[helper] = outside
    assert reached == {}


def test_a_shipped_policys_test_folder_is_no_policy() -> None:
    """tests/policies/<name>/ of a shipped policy holds that policy's tests. tests/policies is on POLICY_PATH in
    the tests, and the loader takes only packages, so such a folder has no `__init__.py`: it neither shadows nor
    duplicates the shipped policy (and pytest does not import it as a package named after it, e.g. `operator`)."""
    import pkgutil

    shipped = {p.name for p in (REPO / "policies").iterdir() if (p / "__init__.py").is_file()}
    test_folders = {p.name for p in (REPO / "tests" / "policies").iterdir() if p.is_dir() and p.name in shipped}
    assert test_folders == {"operator", "freight"}
    assert not [name for name in test_folders if (REPO / "tests" / "policies" / name / "__init__.py").exists()]
    # what the loader (`policies.available_policies`) finds in the folder: the test-only policies alone
    found = {m.name for m in pkgutil.iter_modules([str(REPO / "tests" / "policies")]) if m.ispkg}
    assert found == {"survey", "dispatch"}
