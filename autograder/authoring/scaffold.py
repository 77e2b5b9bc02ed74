"""`autograder new-assignment NAME --functions f,g`: every skeleton a new assignment needs, correct from the start.

Creates the suite, its catalog, the English and Korean solution notebooks and (in a copy of the kit's
repository) the catalog's Korean translations (messages_<name>.ko.po beside it, begun empty: `autograder
i18n sync` adds its entries), the corpus and the curriculum section, a file of its own
(docs/curriculum/<name>.md, unless the spec already holds the section); appends the grading.toml
tables (the text already there is left byte for byte). In a course directory the suite and catalog
go to its suites/. Each placeholder a person must fill says "write me", and the kit's
tests fail on it until it is filled: the suite's references raise, the solution cells raise, the
corpus files raise.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import nbformat

from autograder.authoring import po_sync, templates
from autograder.authoring.notebooks import notebook
from autograder.authoring.plan import AssignmentPlan, plan

# Points of the one property the scaffold gives each function ("correct"); the author sets the real ones.
POINTS = 1
# What every placeholder says (in the skeletons); tests/test_placeholders.py fails while one is left.
PLACEHOLDER = "write me"


@dataclasses.dataclass(frozen=True)
class Scaffold:
    """What `new_assignment` wrote: files created and files appended to, relative to the repository or course."""

    plan: AssignmentPlan
    created: tuple[Path, ...]
    appended: tuple[Path, ...]

    def to_edit(self) -> tuple[Path, ...]:
        """The files a person writes in, in the order docs/adding-an-assignment.md takes them."""
        p = self.plan
        if p.in_course:
            return tuple(path.relative_to(p.root) for path in (p.suite, p.english_notebook, p.korean_notebook))
        section = (p.curriculum_section,) if p.curriculum_section.relative_to(p.root) in self.created else ()
        return tuple(path.relative_to(p.root) for path in (
            *section, p.suite, p.english_notebook, p.korean_notebook,
            p.corpus / "mistakes" / "right_structure_wrong_values.py", p.corpus / "correct" / "alternative.py"))

    def summary(self) -> str:
        """What was written and what to do next, for the terminal."""
        lines = [f"Scaffolded {self.plan.name} ({', '.join(self.plan.functions)}) in {self.plan.root}:"]
        lines += [f"  created  {path}" for path in self.created]
        lines += [f"  appended {path}" for path in self.appended]
        lines.append("Now write where it says \"write me\", in these files (docs/adding-an-assignment.md):")
        lines += [f"  {path}" for path in self.to_edit()]
        if self.plan.in_course:
            lines.append(f"Then: autograder release {self.plan.name}, and grade its solution: autograder grade "
                         f"solutions/{self.plan.name} --out graded --assignment {self.plan.name}")
        else:
            lines.append(f"Then: make test-assignment A={self.plan.name}")
        return "\n".join(lines)


def new_assignment(root: Path, name: str, functions: list[str]) -> Scaffold:
    """Write the skeletons of assignment `name` grading `functions` into the repository or course at `root`.

    Raises:
        ScaffoldError: the name or a function is malformed or taken, or a file it would create exists;
            nothing has been written then.
    """
    chosen = plan(root, name, functions)
    points: dict[str, float] = {function: POINTS for function in chosen.functions}
    created = [
        _write(chosen.suite, _suite(chosen)),
        _write(chosen.catalog, templates.fill("messages.py.tmpl", name=chosen.name,
                                              translations=chosen.translations.relative_to(chosen.root))),
        _write_notebook(chosen.english_notebook, notebook(chosen, "en", points)),
        _write_notebook(chosen.korean_notebook, notebook(chosen, "ko", points)),
        *([] if chosen.in_course else [_write(chosen.translations, po_sync.header(chosen.translations)),
                                       *_corpus(chosen)]),
    ]
    # A section the curriculum already holds is the spec: it is kept as it is. A course has no curriculum here.
    if not chosen.in_course and not _specified(chosen):
        created.insert(0, _write(chosen.curriculum_section, _curriculum_section(chosen)))
    appended = [_append(chosen.grading_toml, _grading_tables(chosen))]
    return Scaffold(chosen, tuple(p.relative_to(chosen.root) for p in created),
                    tuple(p.relative_to(chosen.root) for p in appended))


def _suite(p: AssignmentPlan) -> str:
    checks = "".join(templates.fill("suite_check.py.tmpl", name=p.name, function=f, **_call_fields(p, f),
                                    rule="-" * max(3, 76 - len(f))) for f in p.functions)
    return templates.fill("suite.py.tmpl", name=p.name, checks=checks.rstrip("\n"))


def _call_fields(p: AssignmentPlan, function: str) -> dict[str, str]:
    """The suite check's parameters, one drawn array per parameter, and the arguments' tuple."""
    parameters = p.parameters_of(function)
    draws = "\n    ".join(f"{name} = rng.standard_normal(int(sizes.integers(5, 40))).astype(F32)"
                          for name in parameters)
    arguments = f"({parameters[0]},)" if len(parameters) == 1 else f"({', '.join(parameters)})"
    return {"params": ", ".join(parameters), "draws": draws, "arguments": arguments}


def _grading_tables(p: AssignmentPlan) -> str:
    return "".join(templates.fill("grading.toml.tmpl", name=p.name, function=f, points=POINTS)
                   for f in p.functions)


def _specified(p: AssignmentPlan) -> bool:
    """Whether the assignment's section is there already, as the spec wrote it: its own file
    (docs/curriculum/<name>.md) or a section `## <name> ...` of docs/curriculum.md."""
    return p.curriculum_section.is_file() or any(line.startswith(f"## {p.name} ") or line.strip() == f"## {p.name}"
               for line in p.curriculum.read_text(encoding="utf-8").splitlines())


def _curriculum_section(p: AssignmentPlan) -> str:
    rows = "".join(templates.fill("curriculum_row.md.tmpl", function=f, params=", ".join(p.parameters_of(f)))
                   for f in p.functions)
    return templates.fill("curriculum.md.tmpl", name=p.name, rows=rows.rstrip("\n"))


def _corpus(p: AssignmentPlan) -> list[Path]:
    mistakes = "".join(templates.fill("cases_mistake.toml.tmpl", function=f) for f in p.functions)
    quoted = ", ".join(f'"{f}"' for f in p.functions)

    def module(template: str, function_template: str) -> str:
        return templates.fill(template, functions="".join(
            templates.fill(function_template, function=f, params=", ".join(p.parameters_of(f)))
            for f in p.functions).rstrip("\n"))

    return [_write(p.corpus / "cases.toml", templates.fill("cases.toml.tmpl", mistakes=mistakes,
                                                           quoted_functions=quoted)),
            _write(p.corpus / "mistakes" / "right_structure_wrong_values.py",
                   module("mistake.py.tmpl", "mistake_function.py.tmpl")),
            _write(p.corpus / "correct" / "alternative.py", module("correct.py.tmpl", "correct_function.py.tmpl"))]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as file:  # "x": never over an existing file
        file.write(text if text.endswith("\n") else text + "\n")
    return path


def _write_notebook(path: Path, nb) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return _write(path, nbformat.writes(nb))


def _append(path: Path, text: str) -> Path:
    """Add `text` at the end of `path` as a paragraph of its own: one blank line before it, whatever the end."""
    existing = path.read_bytes()
    separator = "" if not existing or existing.endswith(b"\n\n") else "\n" if existing.endswith(b"\n") else "\n\n"
    with path.open("a", encoding="utf-8") as file:
        file.write(separator + text.lstrip("\n"))
    return path
