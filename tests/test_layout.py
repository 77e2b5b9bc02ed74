"""The layout keeps the trust boundary visible: what runs next to student code, and what the parent owns."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograder.catalog import assignment_catalogs, messages
from autograder.child import tamper
from autograder.sandbox import os_isolation

PACKAGE = Path(__file__).resolve().parents[1] / "autograder"
TRUSTED_ONLY = ("check/", "grade/", "suites/", "integrations/", "reports/", "student/")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The kit's modules `path` imports, anywhere in it (function-level imports count too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        found |= {name for name in names if name in modules}
    return found


def test_no_import_cycle_among_the_kits_modules():
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: _imports(path, set(files)) - {name} for name, path in files.items()}
    visiting, done, cycles = [], set(), []

    def visit(name):
        if name in done:
            return
        if name in visiting:
            cycles.append(visiting[visiting.index(name):] + [name])
            return
        visiting.append(name)
        for dependency in sorted(graph[name]):
            if not (dependency == "autograder" or name.startswith(dependency + ".")):  # a package's own __init__
                visit(dependency)
        visiting.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)
    assert not cycles, f"import cycles: {cycles[:3]}"


def test_the_child_sees_no_trusted_side_module():
    visible = {str(path.relative_to(PACKAGE)) for path in os_isolation.child_side_files()}
    leaked = sorted(name for name in visible if name.startswith(TRUSTED_ONLY))
    assert not leaked, f"modules the sandbox child can read but must not: {leaked}"
    every_child_module = {str(p.relative_to(PACKAGE)) for p in (PACKAGE / "child").glob("*.py")}
    assert every_child_module <= visible, "child/ holds only what runs in the child"


def test_the_tamper_detector_watches_every_child_and_protocol_module():
    on_disk = {_module_name(p) for folder in ("child", "protocol") for p in (PACKAGE / folder).glob("*.py")
               if p.name != "__init__.py"}
    assert set(tamper.own_modules()) == on_disk


def test_assignment_sentences_live_beside_their_suites():
    catalogs = assignment_catalogs.found()
    suites = sorted(p.stem.removeprefix("test_") for p in (PACKAGE / "suites").glob("test_*.py"))
    assert sorted(c.__name__.rsplit(".messages_", 1)[1] for c in catalogs) == suites
    for catalog in catalogs:
        assignment = catalog.__name__.rsplit(".messages_", 1)[1]
        for key in (*catalog.ENGLISH, *catalog.IDEAS, *catalog.APIS):
            assert key.startswith(assignment + "."), f"{catalog.__name__} defines {key}, outside its assignment"
            assert key in messages.ENGLISH or key in catalog.IDEAS
    common = (PACKAGE / "catalog" / "messages.py").read_text(encoding="utf-8")
    assert not [name for name in suites if f'"{name}.' in common], "exercise sentences left in the common catalog"


def test_a_key_defined_by_two_catalogs_is_refused():
    shared = {"02_where.selu.values": "one"}
    with pytest.raises(ValueError, match="02_where.selu.values.*already defines"):
        assignment_catalogs.merge(shared, {"02_where.selu.values": "two"}, "autograder.suites.messages_02_where")


def test_child_side_code_imports_nothing_from_the_trusted_side():
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    for folder in ("child", "protocol"):
        for path in (PACKAGE / folder).glob("*.py"):
            trusted = sorted(name for name in _imports(path, set(files))
                             if name.startswith(("autograder.check", "autograder.grade", "autograder.sandbox",
                                                 "autograder.suites", "autograder.integrations",
                                                 "autograder.reports")))
            assert not trusted, f"{path.relative_to(PACKAGE)} imports {trusted}, which belong to the trusted side"
