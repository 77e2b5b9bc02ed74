"""The docs name only what exists: every repository path they cite, and every name of the suite API.

The reference half of docs/writing-a-suite.md is generated and checked by tests/test_suite_api.py; the
hand-written half around it is checked here:

- every `autograder.…` dotted name is a module or one of its attributes;
- in code spans and blocks, every call of a bare name calls the suite API (`autograder.suites.api`)
  or a graded function (a `[assignments.<assignment>.<function>]` table of grading.toml); every
  keyword argument given to a callable of the API is one of its parameters; the names listed in a
  class's parentheses (`ProgramFacts(primitives, equation_count, ...)`) are its fields; every
  `submission.<name>` is an attribute of `Submission`, every `<API name>.<name>` one of that name;
- every other name in a code span that looks like an API name (CamelCase, ALL_CAPS, with an
  underscore) is defined: by the API, in the kit's modules, by grading.toml, by JAX or NumPy.

README.md and every docs/ page cite only repository paths that exist: a path in a code span or
block whose first folder is one of the repository's (docs/architecture.md also writes them from
autograder/: `check/submission.py`), `<placeholder>` parts matching any name. Other first folders
are not the repository's (`results/<submission>/`, or a course directory's own `suites/`).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import importlib
import importlib.util
import inspect
import keyword
import re
import subprocess
import tomllib
from functools import cache
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import REPO
from jax import lax

from autograder.student import jax_support
from autograder.suites import api

GUIDE = REPO / "docs" / "writing-a-suite.md"
REFERENCE = re.compile(r"<!-- suite-api reference: generated.*?<!-- end of suite-api reference -->", re.S)
PAGES = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])
FROM_THE_PACKAGE = {REPO / "docs" / "architecture.md"}  # pages that write paths from autograder/ too

_FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
_INLINE = re.compile(r"``?([^`]+?)``?")
_DOTTED_KIT = re.compile(r"(?<![\w./-])autograder(?:\.[A-Za-z_]\w*)+")
_LOOKS_LIKE_API = re.compile(r"[A-Z][a-z0-9]+[A-Z]\w*|[A-Z][A-Z0-9]*_?[A-Z0-9_]{2,}|[a-z]\w*_\w+|[A-Z][a-z]+")


# --- what a page says in code ----------------------------------------------------------------

def code_spans(markdown: str) -> list[str]:
    """The text of every code block, and of every inline code span outside them."""
    blocks = _FENCED.findall(markdown)
    prose = _FENCED.sub("", markdown)
    return blocks + [span.strip() for span in _INLINE.findall(prose.replace("\n", " "))]


def hand_written(guide: str) -> str:
    """The guide without its generated reference."""
    assert REFERENCE.search(guide), "docs/writing-a-suite.md: the generated reference's markers"
    return REFERENCE.sub("", guide)


# --- repository paths ------------------------------------------------------------------------

@cache
def _roots(from_the_package: bool) -> frozenset[str]:
    """The repository's top-level entries, and autograder's folders for a page that writes `check/submission.py`."""
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    tops = {name.split("/")[0] for name in listed.splitlines()}
    if from_the_package:
        tops |= {p.name for p in (REPO / "autograder").iterdir() if p.is_dir()}
    return frozenset(tops)


def _exists(path: str) -> bool:
    """`path` names a file or folder of the repository: `<x>` and `*` match any one name;
    `folder/module.Class.name` names defined in `folder/module.py`."""
    pattern = re.sub(r"<[^>]*>", "*", path).rstrip("/")
    for base in (REPO, REPO / "autograder"):
        if any(base.glob(pattern)) if "*" in pattern else (base / pattern).exists():
            return True
        folder, _, last = pattern.rpartition("/")
        module, *names = last.split(".")
        source = base / folder / f"{module}.py"
        if names and source.is_file() and all(name.isidentifier() for name in names):
            text = source.read_text(encoding="utf-8")
            if all(re.search(rf"^\s*(?:def|class)\s+{name}\b|^\s*{name}\s*[:=]", text, re.M) for name in names):
                return True
    return False


def cited_paths(markdown: str, from_the_package: bool = False) -> list[str]:
    """Each word of a code span or block that is a path into the repository (`autograder/cli.py`,
    `tests/corpus/<a>/`, `grading.toml`), without a `:line` suffix."""
    found = []
    for span in code_spans(markdown):
        for word in re.split(r"[\s`'\"()\[\],;=]+", span):
            word = re.sub(r":\d+$", "", word.rstrip(".:…"))
            first = word.split("/")[0]
            if "://" in word or word.startswith(("/", "~", ".venv")) or first not in _roots(from_the_package):
                continue
            if "/" in word or (REPO / word).is_file() or "." in word:
                found.append(word)
    return found


def missing_paths(markdown: str, from_the_package: bool = False) -> list[str]:
    """The cited paths that do not exist, but for those of an assignment the page itself creates
    (`autograder new-assignment 09_nan_safe` in docs/adding-an-assignment.md: the reader writes them)."""
    created = re.findall(r"new-assignment\s+(\w+)", markdown)
    return sorted({path for path in cited_paths(markdown, from_the_package)
                   if not _exists(path) and not any(name in path.split("/") or f"{name}." in path
                                                     for name in created)})


# --- names of the kit --------------------------------------------------------------------------

@cache
def _graded_functions() -> frozenset[str]:
    with open(REPO / "grading.toml", "rb") as toml:
        assignments = tomllib.load(toml)["assignments"]
    return frozenset(name for tables in assignments.values() for name, value in tables.items()
                     if isinstance(value, dict))


@cache
def _kit_names() -> frozenset[str]:
    """Every name the kit's modules define: functions, classes, constants, and the names in class bodies."""
    names: set[str] = set()
    for path in (REPO / "autograder").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(node.name)
                names.update(a.arg for a in node.args.args + node.args.kwonlyargs)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
                names.update(t.attr for t in targets if isinstance(t, ast.Attribute))
    return frozenset(names)


def _defined(name: str) -> bool:
    return (hasattr(api, name) or name in _kit_names() or name in _graded_functions()
            or any(hasattr(module, name) for module in (builtins, jax, jnp, lax, np)) or _importable(name))


def _importable(name: str) -> bool:
    """A package the kit's environment holds (`ml_dtypes`, JAX's dtypes), named as a module."""
    return name.isidentifier() and importlib.util.find_spec(name) is not None


def _has_attribute(owner: object, name: str) -> bool:
    """A class attribute, a dataclass field, or an attribute its methods set on `self`."""
    if hasattr(owner, name):
        return True
    if isinstance(owner, type):
        if dataclasses.is_dataclass(owner) and name in {f.name for f in dataclasses.fields(owner)}:
            return True
        return bool(re.search(rf"\bself\.{name}\s*[:=]", inspect.getsource(owner)))
    return False


def _resolve(node: ast.expr) -> object | None:
    """What a name in a span stands for: an API object, `Submission` for `submission`, an attribute of
    either, or an `autograder` module; None for anything else (JAX's names, the student's)."""
    if isinstance(node, ast.Name):
        if node.id == "submission":
            return api.Submission
        return getattr(api, node.id, None)
    if isinstance(node, ast.Attribute):
        owner = _resolve(node.value)
        if owner is not None and _has_attribute(owner, node.attr):
            return getattr(owner, node.attr, _UNKNOWN_VALUE)
    return None


_UNKNOWN_VALUE = object()  # an attribute that exists but has no class value (set in __init__)


def _parse(span: str) -> ast.AST | None:
    """A span as Python: `<placeholders>` as names, `with ...:`/`raise ...`/`@...` as their expression."""
    code = re.sub(r"<[^>]*>", "_placeholder", span.strip())
    code = re.sub(r"^(?:with|raise|@)\s*", "", code).removesuffix(":").strip()
    for text in (code, code.replace("\n", ";")):
        try:
            return ast.parse(text)
        except SyntaxError:
            continue
    return None


def _call_problems(call: ast.Call) -> list[str]:
    callee = _resolve(call.func)
    problems = []
    if callee is None:
        if isinstance(call.func, ast.Attribute):
            owner = _resolve(call.func.value)
            if owner is not None and owner is not _UNKNOWN_VALUE:
                problems.append(f"{ast.unparse(call.func)}: no such attribute")
        elif isinstance(call.func, ast.Name) and not _defined(call.func.id) and call.func.id != "_placeholder":
            problems.append(f"{call.func.id}(...): neither the suite API nor a graded function")
        return problems
    if callee is _UNKNOWN_VALUE:
        return problems
    try:
        parameters = inspect.signature(callee).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return problems
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    shown = ast.unparse(call.func)
    problems += [f"{shown}(..., {k.arg}=...): no such parameter" for k in call.keywords
                 if k.arg and not takes_any and k.arg not in parameters]
    if isinstance(callee, type):  # `ProgramFacts(primitives, equation_count, ...)` lists fields
        problems += [f"{shown}(..., {a.id}, ...): no such field" for a in call.args
                     if isinstance(a, ast.Name) and not _has_attribute(callee, a.id)]
    return problems


def unknown_names(span: str) -> list[str]:
    """What a code span of the hand-written guide names that does not exist (a path: see cited_paths)."""
    if re.fullmatch(r"[\w.<>*-]*/[\w.<>*/-]*", span.strip()):
        return []
    problems = [name for name in _DOTTED_KIT.findall(span) if not _kit_object_exists(name)]
    tree = _parse(span)
    if tree is None:  # prose-like code (`expect_*`): only its API-looking words
        return problems + [f"{word}: not defined" for word in re.findall(r"\b[A-Za-z_]\w*\b", span)
                           if _LOOKS_LIKE_API.fullmatch(word) and not _defined(word)]
    checked: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("autograder"):
            problems += [f"from {node.module} import {a.name}" for a in node.names
                         if not _kit_object_exists(f"{node.module}.{a.name}")]
        elif isinstance(node, ast.Call):
            problems += _call_problems(node)
            checked.add(id(node.func))
            callee = _resolve(node.func)
            if callee is None or isinstance(callee, type):  # a student's function's arguments; a class's fields
                checked.update(id(a) for a in node.args)
        elif isinstance(node, ast.Attribute) and id(node) not in checked:
            owner = _resolve(node.value)
            if owner is not None and owner is not _UNKNOWN_VALUE and not _has_attribute(owner, node.attr):
                problems.append(f"{ast.unparse(node)}: no such attribute")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Name) and id(node) not in checked and node.id != "_placeholder"
                and _LOOKS_LIKE_API.fullmatch(node.id) and not keyword.iskeyword(node.id)
                and not _defined(node.id)):
            problems.append(f"{node.id}: not defined")
    return problems


def _kit_object_exists(dotted: str) -> bool:
    """`autograder.a.b.c`: the longest prefix that is a module, then attributes of it."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            obj: object = importlib.import_module(module)
            for attribute in parts[cut:]:
                if not _has_attribute(obj, attribute):
                    return False
                obj = getattr(obj, attribute, _UNKNOWN_VALUE)
            return True
    return False


# --- the tests -----------------------------------------------------------------------------------

@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_every_repository_path_a_page_cites_exists(page):
    missing = missing_paths(page.read_text(encoding="utf-8"), page in FROM_THE_PACKAGE)
    assert not missing, f"{page.relative_to(REPO)} cites paths the repository does not have: {missing}"


def test_the_hand_written_guide_names_only_what_exists():
    guide = hand_written(GUIDE.read_text(encoding="utf-8"))
    problems = [f"`{span[:60]}`: {problem}" for span in code_spans(guide) for problem in unknown_names(span)]
    problems += [f"{name}: not a module or attribute" for name in _DOTTED_KIT.findall(guide)
                 if not _kit_object_exists(name)]
    assert not problems, "docs/writing-a-suite.md (hand-written part) names what does not exist:\n" + "\n".join(
        problems)


def test_the_readme_states_the_jax_releases_the_matrix_tests():
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    stated = re.search(r"Tested release by release \(`make test-jax-versions`\): ([^(]*)\(the grader's pin\)", readme)
    assert stated, "README: the tested JAX releases, after 'Tested release by release'"
    assert tuple(re.findall(r"\d+\.\d+\.\d+", stated.group(1))) == jax_support.TESTED


def test_the_nbgrader_guide_shows_the_readmes_formgrader_command():
    """tests/test_nbgrader_formgrader.py runs the README's; the guide's is the same."""
    def command(page: Path) -> str:
        found = re.search(r"<!-- formgrader command -->\s*```\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
        assert found, f"{page.name}: the formgrader command, after its marker"
        return " ".join(found.group(1).replace("\\\n", " ").split())

    assert command(REPO / "docs" / "nbgrader.md") == command(REPO / "README.md")


# --- the checks can fail -------------------------------------------------------------------------

@pytest.mark.parametrize(("span", "problem"), [
    ("JaxprFacts(primitives, equation_count, text)", "JaxprFacts(...)"),
    ("ProgramFacts(primitives, equation_count, text)", "ProgramFacts(..., text, ...)"),
    ("submission.trace_program(fn, args)", "submission.trace_program"),
    ("submission.call_with(fn, args, kwargs, static_args=(0,))", "static_args"),
    ("advice_before_hints", "advice_before_hints"),
    ("TypedKey.from_key(s)", "TypedKey.from_key"),
    ("from autograder.suites.api import expect_output, expect_shapes", "expect_shapes"),
    ("autograder.reports.merge", "autograder.reports.merge"),
])
def test_a_name_that_does_not_exist_is_found(span, problem):
    problems = unknown_names(span)
    assert any(problem in found for found in problems), problems


@pytest.mark.parametrize("span", [
    "ProgramFacts(primitives, equation_count, largest_value_elements, ...)",
    "submission.call_with(fn, args, kwargs, mode=\"plain\"|\"jit\", static_argnums=..., in_axes=...)",
    "raise with_advice(error, text(\"...fix\"))", "with comparing_values(hint=...):",
    "hessian(rosenbrock)(f32[7])", "jax.random.wrap_key_data", "HARNESSES", "submission.devices",
])
def test_names_that_exist_pass(span):
    assert unknown_names(span) == []


def test_a_path_that_does_not_exist_is_found():
    page = "See `autograder/reports/merge.py`, `reports/merge.py` and `docs/trust_model.md`; not `results/x.json`."
    assert missing_paths(page, from_the_package=True) == [
        "autograder/reports/merge.py", "docs/trust_model.md", "reports/merge.py"]
    assert missing_paths(page) == ["autograder/reports/merge.py", "docs/trust_model.md"]
    cited = "`grade/merge.py`, `tests/corpus/<a>/`, `child/tamper.own_modules`, `grading.toml`"
    assert missing_paths(cited, from_the_package=True) == []


def test_the_readme_says_where_every_guide_is():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    unlisted = [page.name for page in sorted((REPO / "docs").glob("*.md")) if f"docs/{page.name}" not in readme]
    assert not unlisted, f"README.md does not point to {unlisted}"


def test_the_readme_is_a_front_door():
    """At most 300 lines, and no figure that changes with the code: test counts, times and speed-ups
    are measured in docs/benchmark.md (or printed by the command that measures them)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300, "README.md: at most 300 lines; move details to a page in docs/"
    figures = re.findall(r"\b\d+(?:\.\d+)? ?(?:s|ms|min)\b|\b\d+ tests\b|\b\d+(?:\.\d+)?x\b", readme)
    assert not figures, f"README.md states measured figures {figures}: they belong in docs/benchmark.md"
