"""Every student-facing sentence exists in Korean, and Korean feedback is Korean."""

from __future__ import annotations

import re
import string

import polib
import pytest
from conftest import REPO, run_cli

from autograder.catalog import messages

LANGUAGES = [language for language in messages.LANGUAGES if language != "en"]
HANGUL = re.compile(r"[가-힣]")


def _placeholders(template: str) -> set[tuple[str, str, str]]:
    return {(name, spec or "", conversion or "") for _, name, spec, conversion in string.Formatter().parse(template)
            if name is not None}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_has_a_translation(language):
    catalog = messages.catalog(language)
    missing = sorted(set(messages.ENGLISH) - set(catalog))
    assert not missing, (f"autograder/catalog/locale/{language}.po has no current translation of "
                         f"{len(missing)} message(s) "
                         f"(new keys, or English changed since it was translated): {missing}")


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_the_placeholders_of_the_english(language):
    entries = polib.pofile(str(messages.LOCALE / f"{language}.po"))
    wrong = [entry.msgctxt for entry in entries if entry.msgstr and entry.msgctxt in messages.ENGLISH
             and _placeholders(entry.msgstr) != _placeholders(messages.ENGLISH[entry.msgctxt])]
    assert not wrong, f"{language}.po: placeholders differ from the English in {wrong}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_catalog_has_no_entries_for_unknown_keys(language):
    entries = polib.pofile(str(messages.LOCALE / f"{language}.po"))
    stale = [entry.msgctxt for entry in entries if entry.msgctxt not in messages.ENGLISH and not entry.obsolete]
    assert not stale, f"{language}.po translates keys that no longer exist: {stale}"


def test_korean_check_of_a_stub_is_korean_throughout():
    """Every line of feedback a student reads has Hangul; only check names and code stay in English."""
    completed = run_cli("--lang", "ko", "check", "assignments/02_where/02_where.ipynb", "--seed", "1", cwd=REPO)
    lines = [line.strip() for line in completed.stdout.splitlines() if line.strip()]
    feedback = [line for line in lines if not line.startswith(("✓", "✗"))]
    english = [line for line in feedback if not HANGUL.search(line)]
    assert feedback and not english, f"English left in Korean output: {english}"


def test_an_unknown_language_says_so_and_falls_back_to_english():
    completed = run_cli("--lang", "xx", "check", "assignments/02_where/02_where.ipynb", "--exercise", "selu",
                        "--seed", "1", cwd=REPO)
    assert "no feedback in language 'xx'" in completed.stderr
    assert "is not implemented yet" in completed.stdout


def test_a_korean_notebook_checks_in_korean_by_itself_and_an_explicit_language_wins():
    notebook = "solutions/ko/05_grad_aux/05_grad_aux.ipynb"
    korean = run_cli("check", notebook, "--exercise", "loss_with_aux", "--seed", "1", cwd=REPO)
    assert "총점: 4 / 4" in korean.stdout, korean.stdout + korean.stderr
    english = run_cli("--lang", "en", "check", notebook, "--exercise", "loss_with_aux", "--seed", "1", cwd=REPO)
    assert "Total: 4 / 4" in english.stdout and not HANGUL.search(english.stdout)
