"""The released notebook's examples, which the grader skips when nothing graded can depend on them.

Every locked cell of a released notebook except its setup cell is an
example: a demonstration of the beginner's error (grade_id
"demo_<function>") or the example data the demonstrations use ("data").
Those cells compile their own XLA programs, which made them most of a full
solution's load time and nearly all of a stub's. `autograder grade` and
`autograder check` skip a submission's cell when all of these hold, so that
skipping cannot change a grade:

1. its source is exactly an example cell of the released notebook
   (assignments/), so it is kit code, not the student's;
2. no cell that runs, and no graded function, reads a name it binds;
3. it reads no name that a cell the student wrote (any cell that is not one
   of the released notebook's locked cells, unchanged) assigns or defines,
   so it cannot call student code (names the student only imports are fine:
   a demo then runs library code, which affects nothing graded);
4. no cell that runs reaches names dynamically (globals(), eval, exec,
   sys.modules, a function's __globals__, ...), where reads cannot be seen.

Names come from Python's own symbol tables (the symtable module), so a
function's parameters and locals are not mistaken for global reads.
The setup cell (grade_id "setup") always runs: imports and configuration
belong there. Example cells must not change global state (jax.config,
NumPy's global seed): docs/notebook-conventions.md says so, and
tests/test_example_cells.py checks the released notebooks. nbgrader runs every cell; the scores agree
because a skipped cell affects nothing graded.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import symtable
from pathlib import Path

from autograder.load.submission_source import CodeCell, nbformat, strip_ipython_lines

TRANSLATIONS = ("ko",)  # released notebooks in other languages: assignments/<language>/<a>/
SETUP = "setup"  # the one locked cell that always runs

# Ways to reach a module's names without naming them.
_DYNAMIC_NAMES = frozenset({
    "globals", "locals", "vars", "eval", "exec", "dir", "__import__", "__main__", "__builtins__",
    "sys", "importlib", "inspect", "builtins",
})
_DYNAMIC_ATTRIBUTES = frozenset({"__globals__", "__dict__", "f_globals", "f_locals", "f_back", "modules",
                                 "__builtins__"})


@dataclasses.dataclass(frozen=True)
class CellNames:
    """What one cell does with module-level names."""

    binds: frozenset[str]  # assigned, defined, imported, deleted or declared global
    assigns: frozenset[str]  # the same, except plain imports
    reads: frozenset[str]  # read at module level, or as a global from inside a function or class
    dynamic: bool  # reaches names in a way `reads` cannot see


@dataclasses.dataclass(frozen=True)
class ReleasedCells:
    """Sources of the released notebook's code cells, as a submission's cells hold them."""

    examples: frozenset[str] = frozenset()  # locked cells the grader may skip: demonstrations, example data
    locked: frozenset[str] = frozenset()  # every locked cell that is not a check: setup and examples


def released_cells(assignment: str, assignments_dir: Path) -> ReleasedCells:
    """The released notebooks' example and locked cells, in every language; none if there is no released notebook.

    `assignments_dir` is the course's release directory (assignments/ beside its grading.toml).

    A Korean notebook's examples carry Korean comments and labels: they are
    recognised from assignments/ko/ as the English ones are from assignments/.
    """
    found = [_released_cells(str(folder / assignment / f"{assignment}.ipynb"))
             for folder in (assignments_dir, *(assignments_dir / language for language in TRANSLATIONS))]
    return ReleasedCells(frozenset().union(*(cells.examples for cells in found)),
                         frozenset().union(*(cells.locked for cells in found)))


@functools.lru_cache(maxsize=None)
def _released_cells(path: str) -> ReleasedCells:
    try:
        notebook = nbformat.read(path, as_version=4)
    except (OSError, ValueError):
        return ReleasedCells()  # every cell runs
    examples, locked = set(), set()
    for cell in notebook.cells:
        nbgrader = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type != "code" or not nbgrader.get("locked") or nbgrader.get("grade") or nbgrader.get("solution"):
            continue
        source = strip_ipython_lines(cell.source)[0]
        locked.add(source)
        if nbgrader.get("grade_id") != SETUP:
            examples.add(source)
    return ReleasedCells(frozenset(examples), frozenset(locked))


def cells_to_skip_in(assignment: str, cells: tuple[CodeCell, ...], config) -> frozenset[int]:
    """cells_to_skip against `assignment`'s released notebook in the course and the functions grading.toml
    grades."""
    return cells_to_skip(cells, released_cells(assignment, config.course.assignments),
                         frozenset(config.functions(assignment)))


def cells_to_skip(cells: tuple[CodeCell, ...], released: ReleasedCells, graded: frozenset[str]) -> frozenset[int]:
    """Numbers of the cells that are unchanged examples nothing graded depends on (rules 1-4 above)."""
    candidates = {cell.number for cell in cells if cell.source in released.examples}
    if not candidates:
        return frozenset()
    names = {cell.number: cell_names(cell.source) for cell in cells}
    others = [number for number in names if number not in candidates]
    if any(names[number].dynamic for number in others):
        return frozenset()
    students = [cell.number for cell in cells if cell.source not in released.locked]
    student_assigned = frozenset().union(*(names[number].assigns for number in students))
    skipped = {number for number in candidates
               if not names[number].dynamic and not names[number].reads & student_assigned}
    while True:
        needed = graded.union(*(names[number].reads for number in names if number not in skipped))
        still = {number for number in skipped if not names[number].binds & needed}
        if still == skipped:
            return frozenset(skipped)
        skipped = still


def cell_names(source: str) -> CellNames:
    """The module-level names `source` binds and reads; a cell that does not compile binds and reads nothing."""
    try:
        table = symtable.symtable(source, "<cell>", "exec")
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return CellNames(frozenset(), frozenset(), frozenset(), False)
    binds, assigns, reads = set(), set(), set()
    for symbol in table.get_symbols():
        name = symbol.get_name()
        if symbol.is_assigned() or symbol.is_namespace() or symbol.is_declared_global():
            binds.add(name)
            assigns.add(name)
        if symbol.is_imported():
            binds.add(name)
        if symbol.is_referenced():
            reads.add(name)
    for nested in _nested_tables(table):
        for symbol in nested.get_symbols():
            if symbol.is_declared_global():
                binds.add(symbol.get_name())
                assigns.add(symbol.get_name())
                reads.add(symbol.get_name())
            elif symbol.is_global() and symbol.is_referenced():
                reads.add(symbol.get_name())
    # `x += 1` and `del x` need x to exist, but the symbol table counts them as bindings only.
    # (Counting them wherever they are, even on a function's locals, only ever skips less.)
    for node in ast.walk(tree):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            reads.add(node.target.id)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del):
            reads.add(node.id)
    dynamic = bool((binds | reads) & _DYNAMIC_NAMES) or any(
        isinstance(node, ast.Attribute) and node.attr in _DYNAMIC_ATTRIBUTES for node in ast.walk(tree)
    )
    return CellNames(frozenset(binds), frozenset(assigns), frozenset(reads), dynamic)


def _nested_tables(table: symtable.SymbolTable):
    for child in table.get_children():
        yield child
        yield from _nested_tables(child)
