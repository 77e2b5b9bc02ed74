"""Every student-facing sentence exists in Korean, and Korean feedback is Korean."""

from __future__ import annotations

import re
import string
from pathlib import Path

import polib
import pytest
from conftest import REPO, run_cli
from korean_glossary import glossary_breaches, particles_after_placeholders, replaced_terms

from autograder import cli, grading_config
from autograder.catalog import assignment_catalogs, messages
from autograder.check.results import CheckResult, SubmissionResult
from autograder.student import cli as student_cli

LANGUAGES = [language for language in messages.LANGUAGES if language != "en"]
HANGUL = re.compile(r"[가-힣]")


def _files(language: str) -> list[tuple[Path, list[str]]]:
    """Each PO file of `language` with the keys it translates, in the English order: catalog/locale/<language>.po
    the kit's common sentences, and each assignment's messages_<assignment>.<language>.po its catalog's own."""
    catalogs = assignment_catalogs.found()
    owned = {key for catalog in catalogs for key in assignment_catalogs.own_keys(catalog)}
    files = [(messages.LOCALE / f"{language}.po", [key for key in messages.ENGLISH if key not in owned])]
    for catalog in catalogs:
        own = set(assignment_catalogs.own_keys(catalog))
        files.append((assignment_catalogs.translations(catalog, language), [k for k in messages.ENGLISH if k in own]))
    return files


def _entries(language: str) -> list[polib.POEntry]:
    """Every entry of every PO file of `language` that exists."""
    return [entry for path, _ in _files(language) if path.is_file() for entry in polib.pofile(str(path))]


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
    entries = _entries(language)
    wrong = [entry.msgctxt for entry in entries if entry.msgstr and entry.msgctxt in messages.ENGLISH
             and _placeholders(entry.msgstr) != _placeholders(messages.ENGLISH[entry.msgctxt])]
    assert not wrong, f"{language}.po: placeholders differ from the English in {wrong}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_catalog_has_no_entries_for_unknown_keys(language):
    entries = _entries(language)
    stale = [entry.msgctxt for entry in entries if entry.msgctxt not in messages.ENGLISH and not entry.obsolete]
    assert not stale, f"{language}.po translates keys that no longer exist: {stale}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_catalog_translates_its_own_sentences_only(language):
    """An assignment's sentences, hints and check names are translated beside its catalog
    (suites/messages_<assignment>.<language>.po), so that adding one edits no shared file; the kit's
    catalog/locale/<language>.po holds the common sentences only."""
    misplaced = {}
    for path, keys in _files(language):
        own = set(keys)
        entries = polib.pofile(str(path)) if path.is_file() else []
        found = [entry.msgctxt for entry in entries if entry.msgctxt in messages.ENGLISH and entry.msgctxt not in own]
        if found:
            misplaced[path.name] = found
    assert not misplaced, (f"entries in another catalog's PO file (an assignment's go to "
                           f"suites/messages_<assignment>.{language}.po): {misplaced}")


@pytest.mark.parametrize("language", LANGUAGES)
def test_catalog_entries_follow_the_english_order(language):
    """A translator reads the catalog in the order of the English (`autograder i18n sync` inserts new keys so)."""
    position = {key: index for index, key in enumerate(messages.ENGLISH)}
    misplaced = []
    for path, _ in _files(language):
        keys = [entry.msgctxt for entry in (polib.pofile(str(path)) if path.is_file() else [])
                if not entry.obsolete and entry.msgctxt in position]
        misplaced += [f"{path.name}: {after} (after {before})" for before, after in zip(keys, keys[1:], strict=False)
                      if position[before] > position[after]]
    assert not misplaced, (f"not in the order of messages.ENGLISH at {misplaced[:5]}: move "
                           "these entries to their key's place (new keys: `autograder i18n sync` puts them there)")


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


def test_no_korean_particle_follows_a_placeholder():
    """`{call}이`, `셀 {cell}을`: the particle's form depends on the value's last sound, so none is right for all."""
    entries = _entries("ko")
    wrong = {entry.msgctxt: particles_after_placeholders(entry.msgstr) for entry in entries
             if particles_after_placeholders(entry.msgstr)}
    assert not wrong, (f"ko.po: a particle follows a placeholder in {wrong}; rewrite as `{{call}}: ...` "
                       "or put a noun between (`{cell}번 셀을`, `` `{function}` 함수가 ``)")


def test_korean_catalog_uses_the_glossary_words():
    """The feedback says 손실, 딕셔너리, 확인 셀... as the notebooks do (autograder/catalog/locale/GLOSSARY.md)."""
    terms = replaced_terms()
    assert terms, "GLOSSARY.md lists no replaced words: its table could not be read"
    entries = _entries("ko")
    wrong = {entry.msgctxt: glossary_breaches(entry.msgstr, terms) for entry in entries
             if glossary_breaches(entry.msgstr, terms)}
    assert not wrong, f"ko.po uses words GLOSSARY.md replaces: {wrong}"


def test_every_graded_property_has_a_check_name_in_the_catalog():
    """Reports show a check's property in the feedback's language, from the catalog key check_name.<property>."""
    config = grading_config.load()
    missing = sorted({prop for assignment in config.assignments for props in config.points[assignment].values()
                      for prop in props if not messages.has(messages.CHECK_NAME_PREFIX + prop)})
    assert not missing, (f"grading.toml's properties {missing} have no catalog entry: add "
                         f"\"check_name.<property>\" to autograder/catalog/messages.py and translate it in ko.po")


def test_a_check_name_is_translated_for_people_and_kept_in_english_as_the_id():
    check = CheckResult("dropout", "no key reuse", 0.0, 2.0, False, "")
    result = SubmissionResult("s", "s.ipynb", "06_prng", 1, [check], language="ko")
    test = result.to_gradescope()["tests"][0]
    assert test["name"] == "dropout: key 재사용 없음"
    assert test["extra_data"]["check"] == "dropout: no key reuse"
    with messages.using("en"):
        assert check.display_name == "dropout: no key reuse"


@pytest.mark.parametrize("main", [cli.main, student_cli.main], ids=["kit", "student package"])
def test_help_of_check_is_in_the_language_asked_for(main, monkeypatch, capsys):
    """`autograder --lang ko check --help`: what a student reads about `check` and its options is Korean."""
    monkeypatch.setenv(messages.LANGUAGE_VARIABLE, "en")  # --lang wins, and the test leaves the variable as it was
    korean = messages.catalog("ko")
    for argv, keys in ((["--lang", "ko", "check", "--help"], ("cli.help_check_path", "cli.help_exercise",
                                                              "cli.help_assignment", "cli.help_usage",
                                                              "cli.help_options", "cli.help_help")),
                       (["--lang=ko", "--help"], ("cli.help_check", "cli.help_lang"))):
        with pytest.raises(SystemExit):
            main(argv)
        shown = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines
        missing = [key for key in keys if " ".join(korean[key].split()) not in shown]
        assert not missing, f"{argv}: not in Korean: {missing}\n{shown}"
        assert "usage:" not in shown and "show this help" not in shown, shown


def test_an_assignments_own_check_name_is_translated_without_its_catalog(monkeypatch, tmp_path):
    """The student package ships no assignment catalog (CHECK_NAMES) and no assignment's PO file: its Korean
    names come from the ko.po its wheel holds, the kit's with the assignments' check names added."""
    from autograder.catalog import messages
    from autograder.student import wheel

    assignments = grading_config.load().assignments
    own = sorted((REPO / "autograder" / "suites").glob("messages_*.ko.po"))
    shipped = wheel.po_for_students(messages.LOCALE / "ko.po", own, assignments)
    assert not [entry.msgctxt for entry in polib.pofile(shipped) if entry.msgctxt.split(".", 1)[0] in assignments]
    (tmp_path / "ko.po").write_text(shipped, encoding="utf-8")
    key = messages.CHECK_NAME_PREFIX + "jittable with num_steps traced"
    monkeypatch.setattr(messages, "ENGLISH", {k: v for k, v in messages.ENGLISH.items() if k != key})
    monkeypatch.setattr(messages, "LOCALE", tmp_path)
    monkeypatch.setattr(messages, "_catalogs", [])
    monkeypatch.setattr(messages, "_loaded", {})  # the catalogs read again, as a process without it reads them
    with messages.using("ko"):
        assert messages.check_name("jittable with num_steps traced") == "num_steps를 trace해도 jit 가능"
    with messages.using("en"):
        assert messages.check_name("jittable with num_steps traced") == "jittable with num_steps traced"
