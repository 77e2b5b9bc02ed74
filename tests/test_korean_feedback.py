"""Korean feedback on real mistakes is Korean: no English outside code, JAX's own words and JAX's error text.

A sample of the corpus (the first mistake of every graded function, and every
mistake of 09 and 10) is graded
with Korean feedback; every note, check name and failed check's feedback must
read as Korean. Allowed in English: code spans and quoted values, identifiers
and calls (`sum_init(f32[8], 5)`), an English gloss in parentheses after a
Korean word, the words kept in English (GLOSSARY.md's list: jit, tracer,
pytree, key, ..., Python's type names; and an assignment's own in its
catalog's KEPT_IN_ENGLISH), and the error text JAX (or the student's code)
raised, which follows `<Name>Error: ` and stays as JAX prints it.
"""

from __future__ import annotations

import re

import pytest
from corpus_cases import MistakeCase, mistakes
from korean_glossary import kept_in_english

from autograder.catalog import messages
from autograder.grade.pipeline import GradingOptions, grade_submission

# The words GLOSSARY.md and the assignments' catalogs keep in English: JAX's and Python's own words, the graded
# functions' parameters, the names the exercises use.
KEPT_IN_ENGLISH = kept_in_english()
_QUOTED = re.compile(r"`[^`]*`|'[^'\n]*'|\"[^\"\n]*\"|<[^>\n]*>")
_GLOSS = re.compile(r"(?<=[가-힣])\([A-Za-z][A-Za-z .,'-]*\)")  # 거듭제곱법(power iteration)
_RAISED = re.compile(r"예외가 발생했습니다: |\w*(?:Error|Exception|Warning): ")  # JAX's own text follows
_CODE_LIKE = re.compile(r"[\w.]*[_.(\[{=][^\s가-힣]*|\b\w+(?:Error|Exception|Warning)\b|\b\d[\w.+-]*")
_WORD = re.compile(r"[A-Za-z][A-Za-z']*\d*")  # a dtype's name with its width is one word: bfloat16
_HANGUL = re.compile(r"[가-힣]")


def _kept(word: str) -> bool:
    """Whether `word` is kept in English: as listed (bfloat16), or its letters are (float for float32)."""
    return word.lower() in KEPT_IN_ENGLISH or word.rstrip("0123456789").lower() in KEPT_IN_ENGLISH


def english_words(text: str, names: set[str]) -> list[str]:
    """The English words of `text` a Korean student should not meet: not code, not JAX's, not a name.

    After a line that quotes a raised error, a line without Hangul is the rest of that error's text
    (JAX's multi-line messages, e.g. which carry component changed its type).
    """
    words: list[str] = []
    raised = False
    for line in text.splitlines():
        if raised and not _HANGUL.search(line):
            continue
        raised = raised or bool(_RAISED.search(line))
        line = _RAISED.split(line)[0]
        line = _CODE_LIKE.sub(" ", _GLOSS.sub(" ", _QUOTED.sub(" ", line)))
        found = (w.rstrip("'") for w in _WORD.findall(line))  # mean' (a formula's prime) is mean
        words += [w for w in found if len(w.rstrip("0123456789")) > 1 and not _kept(w) and w not in names]
    return words


# Assignments whose every corpus mistake is read, not only each function's first (the newest Korean text).
EVERY_MISTAKE = ("09_autodiff", "10_parallel")


def _sample() -> list[MistakeCase]:
    """The first mistake of every graded function in the corpus, and every mistake of EVERY_MISTAKE's."""
    first: dict[tuple[str, str], MistakeCase] = {}
    for case in mistakes():
        first.setdefault((case.assignment, case.function) if case.assignment not in EVERY_MISTAKE else case.id, case)
    return list(first.values())


def test_english_words_finds_english_and_allows_code_and_jax_text():
    names = {"square"}
    raised = ("square(f32[3], True)에서 TypeError 예외가 발생했습니다: JAX arrays are immutable\n"
              "The input carry differs.")
    assert english_words(raised, names) == []
    assert english_words("`x.at[i].set(v)`를 쓰세요. 거듭제곱법(power iteration)", names) == []
    assert english_words("square over its call sequence에서", names) == ["over", "its", "call", "sequence"]
    assert english_words("dtype은 float32가 아니라 bfloat16이어야 합니다", names) == ["bfloat16"]


@pytest.mark.parametrize("case", _sample(), ids=lambda c: c.id)
def test_korean_feedback_on_a_corpus_mistake_has_no_english_prose(case, config, seed):
    messages.choose("ko")
    try:
        result = grade_submission(case.file, config, GradingOptions(seed=seed, sandbox="inprocess",
                                                                     assignment=case.assignment,
                                                                     functions={case.function}))
        texts = [*result.notes, *(c.label for c in result.checks),
                 *(c.feedback for c in result.checks if not c.passed)]
    finally:
        messages.choose(None)
    names = set(config.functions(case.assignment))
    english = {text: english_words(text, names) for text in texts if english_words(text, names)}
    assert not english, (f"{case.id}: English in the Korean feedback: {english}. Translate it in ko.po; a word "
                         "Korean keeps in English (JAX's own) goes in GLOSSARY.md's list, or in the assignment's "
                         "catalog's KEPT_IN_ENGLISH if it is that assignment's alone")
