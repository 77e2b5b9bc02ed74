"""Every notebook in Korean and English: the same cells, ids, checks and points; only the words differ."""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib

import mistune
import nbformat
import pytest
from conftest import REPO
from korean_glossary import glossary_breaches, replaced_terms

SKELETON = REPO / "autograder" / "authoring" / "skeletons" / "notebook_ko.toml"
KOREAN = sorted(p.parent.name for p in (REPO / "solutions" / "ko").glob("*/*.ipynb"))
LANGUAGE_LINE = 'AUTOGRADER_LANG = "ko"'
# Demonstrations that print labels through a variable (`for label, ... in [...]: print(label, ...)`):
# every string literal of these cells may be translated.
LABELS_PRINTED_THROUGH_A_NAME = {("05_grad_aux", "train-step-demo")}


def _pair(assignment):
    english = nbformat.read(REPO / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    korean = nbformat.read(REPO / "solutions" / "ko" / assignment / f"{assignment}.ipynb", as_version=4)
    return english, korean


def _grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _printed_strings(source: str) -> set[tuple[int, int]]:
    """Where the string literals passed to print(...) start: those may be translated."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            for sub in (n for arg in node.args for n in ast.walk(arg)):
                if isinstance(sub, ast.JoinedStr) or (isinstance(sub, ast.Constant) and isinstance(sub.value, str)):
                    found.add((sub.lineno, sub.col_offset))
    return found


def _docstrings(source: str) -> set[int]:
    lines = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                    str):
                lines.add(first.value.lineno)
    return lines


def _code(source: str) -> list[str]:
    """The tokens that make the program: no comments, docstrings or printed text."""
    docstrings, printed, lines = _docstrings(source), _printed_strings(source), source.splitlines()
    tokens = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                          tokenize.ENDMARKER):
            continue
        row, column = token.start
        byte_column = len(lines[row - 1][:column].encode())  # ast counts UTF-8 bytes, tokenize characters
        if token.type == tokenize.STRING and row in docstrings:
            tokens.append("<docstring>")
        elif token.type == tokenize.STRING and (row, byte_column) in printed:
            tokens.append("<printed>")
        else:
            tokens.append(token.string)
    return tokens


def _any_string(token: str) -> str:
    return "<string>" if token[:1] in "\"'" or token[:2].lower() in ("f\"", "f'", "r\"", "r'") else token


def test_every_assignment_has_a_korean_notebook():
    english = sorted(p.parent.name for p in (REPO / "solutions").glob("[0-9]*/*.ipynb"))
    assert KOREAN == english


@pytest.mark.parametrize("assignment", KOREAN)
def test_same_cells_ids_and_nbgrader_metadata(assignment):
    english, korean = _pair(assignment)
    assert [(c.cell_type, c.get("id"), c.metadata) for c in korean.cells] == \
           [(c.cell_type, c.get("id"), c.metadata) for c in english.cells]
    expected = dict(english.metadata)
    expected["autograder"] = dict(english.metadata["autograder"], language="ko")
    assert dict(korean.metadata) == expected


@pytest.mark.parametrize("assignment", KOREAN)
def test_same_checks_and_setup(assignment):
    english, korean = _pair(assignment)
    for en, ko in zip(english.cells, korean.cells, strict=True):
        if en.cell_type != "code":
            continue
        nbgrader = en.metadata.get("nbgrader", {})
        if nbgrader.get("grade") and not nbgrader.get("solution"):
            # The import line's comment is in the notebook's language (authoring.notebooks.check_cell_source).
            assert _code(ko.source) == _code(en.source), f"check cell {_grade_id(en)} differs beyond its comment"
        if _grade_id(en) == "setup":  # its comments are in the notebook's language, as every cell's are
            kept = [line for line in ko.source.splitlines() if not line.startswith(LANGUAGE_LINE)]
            assert _code("\n".join(kept)) == _code(en.source), "setup cell differs beyond its language line"
            assert any(line.startswith(LANGUAGE_LINE) for line in ko.source.splitlines())


@pytest.mark.parametrize("assignment", KOREAN)
def test_same_code_in_every_cell(assignment):
    english, korean = _pair(assignment)
    for en, ko in zip(english.cells, korean.cells, strict=True):
        if en.cell_type == "code" and _grade_id(en) != "setup":
            mask = _any_string if (assignment, en.get("id")) in LABELS_PRINTED_THROUGH_A_NAME else str
            assert [mask(t) for t in _code(ko.source)] == [mask(t) for t in _code(en.source)], \
                f"code of cell {en.get('id')} ({_grade_id(en)}) differs"


@pytest.mark.parametrize("assignment", KOREAN)
def test_markdown_is_translated_and_keeps_its_code(assignment):
    english, korean = _pair(assignment)
    for en, ko in zip(english.cells, korean.cells, strict=True):
        if en.cell_type != "markdown":
            continue
        assert re.search(r"[가-힣]", ko.source), f"markdown cell {en.get('id')} has no Korean"
        spans = lambda text: sorted(re.findall(r"`[^`\n]+`", re.sub(r"```.*?```", "", text, flags=re.S)))  # noqa: E731
        assert spans(ko.source) == spans(en.source), f"inline code of markdown cell {en.get('id')} differs"


@pytest.mark.parametrize("assignment", KOREAN)
def test_korean_markdown_uses_the_glossary_words(assignment):
    """The notebooks say what the feedback says: one word per idea (autograder/catalog/locale/GLOSSARY.md)."""
    terms = replaced_terms()
    _, korean = _pair(assignment)
    wrong = {cell.get("id"): glossary_breaches(cell.source, terms) for cell in korean.cells
             if cell.cell_type == "markdown" and glossary_breaches(cell.source, terms)}
    assert not wrong, f"{assignment}: words GLOSSARY.md replaces, by cell: {wrong}"


def test_the_korean_authoring_skeleton_uses_the_glossary_words():
    """A new assignment starts from notebook_ko.toml (`autograder new`): its cells use the glossary's words too,
    prose and code comments alike."""
    terms = replaced_terms()
    cells = tomllib.loads(SKELETON.read_text(encoding="utf-8"))
    wrong = {name: glossary_breaches(text, terms) for name, text in cells.items() if glossary_breaches(text, terms)}
    assert not wrong, f"{SKELETON.name}: words GLOSSARY.md replaces, by cell: {wrong}"


def test_a_replaced_word_split_over_two_lines_is_found():
    wrapped = "작은 허용 오차 안에서 기준 답과 같아야 합니다. float\n결과는 기준값과 비교합니다."
    assert glossary_breaches(wrapped, replaced_terms()) == ["'float 결과' (use 부동소수점 결과)"]


@pytest.mark.parametrize("assignment", KOREAN)
def test_korean_emphasis_renders(assignment):
    """`**변경 불가능(immutable)**합니다` shows its asterisks: CommonMark does not close emphasis after
    punctuation when a letter follows. Rendered as nbconvert does, no `*` is left outside code."""
    render = mistune.create_markdown()
    _, korean = _pair(assignment)
    for cell in korean.cells:
        if cell.cell_type == "markdown":
            shown = re.sub(r"<code>.*?</code>|<pre>.*?</pre>|\$\$.*?\$\$|\$[^$]*\$", "", render(cell.source),
                           flags=re.S)
            assert "*" not in shown, f"{assignment} cell {cell.get('id')} shows a literal *: {shown[:300]}"
