"""Packages meet only at their public names.

``companion`` is one package of sub-packages (rules, engine, vision, reconciler, device, log,
cli). A module may use anything of its own sub-package, but of another one only what that
sub-package made public: no ``from companion.rules.position import _TAKES``, and no reading
``position._stacks`` from outside ``companion/rules``. Underscored names are where a package
keeps what it may change without telling anyone; a newcomer changing one should only have to
look inside its own package.

The check reads the source (no imports, no execution):

- an ``import`` of an underscored name from another sub-package is a breach;
- ``x._name`` (``x`` not ``self`` or ``cls``) is a breach when ``_name`` is a private name of
  another sub-package (an attribute it assigns, a slot, a method or a module-level name) and
  not one of the reader's own sub-package. Reading which object it is would need the types;
  the names are specific enough (``_stacks``, ``_undo``, ``_TAKES``) that this finds the
  breaches without false alarms.

There are no exceptions: the engine and the reconciler, the rules' fastest readers, use its
public fast layer (``companion.rules.codes``, ``reserves``, ``tables`` and the ``Position``
accessors). A package that needs more of another asks it for a public name.
"""

from __future__ import annotations

import ast
import gc
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"


def sub_package(path: Path) -> str:
    """``rules`` for companion/rules/position.py; ``companion`` for the top-level modules."""
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else "companion"


def module_sub_package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "companion":
        return None
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else "companion"


@cache
def modules() -> dict[Path, ast.Module]:
    """Every module of the package, parsed. The collector is off meanwhile: the trees (about
    280,000 objects, no cycles among them) would set off full collections that walk them all,
    three of them, about a quarter of a second."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("*.py"))}
    finally:
        if collecting:
            gc.enable()


@cache
def flat(tree: ast.Module) -> tuple[ast.AST, ...]:
    """Every node of a module, in ``ast.walk``'s order, walked once for all the checks below."""
    return tuple(ast.walk(tree))


@pytest.fixture(scope="module", autouse=True)
def _forget_the_trees() -> Iterator[None]:
    """The parsed package (about 280,000 objects) is dropped once these tests are done, so
    that the rest of the session's garbage collections do not walk it again and again."""
    yield
    modules.cache_clear()
    flat.cache_clear()


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The underscored names a module defines, as (data, callables): attributes it assigns,
    slots and module-level names; functions, methods and classes."""
    data: set[str] = set()
    callables: set[str] = set()
    for node in flat(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            data.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            callables.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            data.add(node.id)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
        ):
            slots = [e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)]
            data.update(slot for slot in slots if isinstance(slot, str))
    return {n for n in data if is_private(n)}, {n for n in callables if is_private(n)}


def breaches(trees: dict[Path, ast.Module] | None = None) -> dict[str, set[str]]:
    """Module -> the private names of other sub-packages it imports or reads."""
    trees = modules() if trees is None else trees
    data: dict[str, set[str]] = defaultdict(set)
    callables: dict[str, set[str]] = defaultdict(set)
    for path, tree in trees.items():
        names, funcs = private_names(tree)
        data[sub_package(path)] |= names
        callables[sub_package(path)] |= funcs
    found: dict[str, set[str]] = defaultdict(set)
    for path, tree in trees.items():
        own = sub_package(path)
        others = set().union(*(data[p] | callables[p] for p in data if p != own))
        called = {id(n.func) for n in flat(tree) if isinstance(n, ast.Call)}
        where = str(path.relative_to(ROOT))
        for node in flat(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                source = module_sub_package(node.module)
                if source is not None and source != own:
                    found[where] |= {alias.name for alias in node.names if is_private(alias.name)}
            elif isinstance(node, ast.Attribute) and is_private(node.attr):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    continue
                # a name of the reader's own package, of the same kind, is taken to be its own
                mine = callables[own] if id(node) in called else data[own]
                if node.attr in others and node.attr not in mine:
                    found[where].add(node.attr)
    return {where: names for where, names in found.items() if names}


def test_no_package_reaches_into_another() -> None:
    found = {where: sorted(names) for where, names in breaches().items()}
    assert not found, f"private names of another package used (use or add a public name): {found}"


LAYERS: dict[str, set[str]] = {
    "rules": set(),
    "engine": {"rules"},
    "coach": {"rules", "engine"},
    "vision": {"rules"},
    "reconciler": {"rules", "vision"},
    "log": {"rules", "reconciler"},
    "testing": {"rules", "vision", "reconciler"},
    "device": {"rules", "engine", "coach", "vision", "reconciler", "log"},
    "web": {"rules", "coach", "vision", "reconciler", "log", "device"},
    "cli": {"rules", "engine", "coach", "vision", "reconciler", "log", "device", "web"},
}
"""Which sub-packages each may import: data flows one way, rules <- engine <- coach (the
post-game review); vision ->
reconciler -> events -> device and log; the web page reads the device (its ``Remote``) and
the log; the command line on top; the test harnesses (``testing``) beside the product, used
only by tests and benchmarks. The top-level modules
(``errors``, ``component``) are for everyone."""


def imported_sub_packages(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in flat(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            package = module_sub_package(name)
            if package is not None and package != "companion":
                found.add(package)
    return found


def test_data_flows_one_way() -> None:
    assert set(LAYERS) == {sub_package(p) for p in modules()} - {"companion"}
    against: dict[str, list[str]] = {}
    for path, tree in modules().items():
        own = sub_package(path)
        if own != "companion" and imported_sub_packages(tree) - LAYERS[own] - {own}:
            against[str(path.relative_to(ROOT))] = sorted(imported_sub_packages(tree) - LAYERS[own] - {own})
    assert not against, f"imports against the flow of data: {against}"


def test_the_check_sees_a_breach() -> None:
    """The check itself works, on three small made-up modules."""
    rules = PACKAGE / "rules" / "made_up.py"
    device = PACKAGE / "device" / "made_up.py"
    also_rules = PACKAGE / "rules" / "made_up_too.py"
    trees = {
        rules: ast.parse("_TAKES = []\nclass P:\n    def __init__(self):\n        self._stacks = []\n"),
        device: ast.parse("from companion.rules.made_up import _TAKES, P\nv = P()._stacks\nw = v._own\n"),
        also_rules: ast.parse("from companion.rules.made_up import _TAKES\nv = position._stacks\n"),
    }
    found = breaches(trees)
    assert found == {"companion/device/made_up.py": {"_TAKES", "_stacks"}}
    assert module_sub_package("companion.rules.position") == "rules"
    assert module_sub_package("companion.errors") == "companion"


def module_name(path: Path) -> str:
    """``companion.rules.position`` for companion/rules/position.py, ``companion.rules`` for its
    ``__init__.py``."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def runtime_imports(tree: ast.Module, known: set[str]) -> set[str]:
    """The modules of ``known`` a module imports when it runs: every ``import`` and ``from``,
    in functions too, but not those only a type checker reads (``if TYPE_CHECKING:``). ``from
    package import name`` imports the submodule when ``name`` is one, else the package."""
    checker_only = {
        id(inner)
        for node in flat(tree)
        if isinstance(node, ast.If) and is_type_checking(node.test)
        for inner in ast.walk(node)
    }
    found: set[str] = set()
    for node in flat(tree):
        if id(node) in checker_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in known else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found & known


def is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
    return name == "TYPE_CHECKING"


def import_cycles(trees: dict[Path, ast.Module]) -> list[list[str]]:
    """The groups of modules that import each other, directly or round a loop (Tarjan's
    strongly connected components of the import graph, those of more than one module)."""
    names = {module_name(path): tree for path, tree in trees.items()}
    graph = {name: runtime_imports(tree, set(names)) - {name} for name, tree in names.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for other in graph[name]:
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            group = [stack.pop()]
            while group[-1] != name:
                group.append(stack.pop())
            if len(group) > 1:
                cycles.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return cycles


def test_no_import_cycles() -> None:
    """Modules that import each other (as fen.py and position.py once did) can only be read,
    tested and changed together, and break depending on which is imported first."""
    assert import_cycles(modules()) == []


def test_the_cycle_check_sees_a_cycle() -> None:
    rules = PACKAGE / "rules"
    trees = {
        rules / "__init__.py": ast.parse("from companion.rules.a import A\n"),
        rules / "a.py": ast.parse("def f():\n    from companion.rules import b\n"),
        rules / "b.py": ast.parse("import companion.rules.a\n"),
        rules / "c.py": ast.parse(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import companion.rules.a\n"
        ),
        rules / "d.py": ast.parse("from companion.rules.a import A\n"),
    }
    assert import_cycles(trees) == [["companion.rules.a", "companion.rules.b"]]
