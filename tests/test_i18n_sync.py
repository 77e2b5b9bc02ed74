"""`autograder i18n sync` adds exactly the missing keys to a PO catalog, each at its place in the English order,
untranslated, and leaves every existing line as it was."""

from __future__ import annotations

import difflib

import polib
from conftest import REPO

from autograder.authoring import english_catalog, po_sync
from autograder.catalog import messages

KOREAN = REPO / "autograder" / "catalog" / "locale" / "ko.po"
NEW = [("aaa.before_everything", "First of all."),
       ("load.new_sentence", 'A {thing} with "quotes" and a \\ backslash.'),
       ("zzz.after_everything", "Two lines:\n{detail}")]


def _current() -> list[tuple[str, str]]:
    """The catalog's own keys and English, in its own order: what sync sees when nothing is new."""
    return [(entry.msgctxt, entry.msgid) for entry in polib.pofile(str(KOREAN)) if not entry.obsolete]


def _with_new_keys() -> list[tuple[str, str]]:
    english = _current()
    after = next(i for i, (key, _) in enumerate(english) if key.startswith("load.")) + 1
    return [NEW[0], *english[:after], NEW[1], *english[after:], NEW[2]]


def test_an_unchanged_catalog_is_left_byte_for_byte():
    text = KOREAN.read_text(encoding="utf-8")
    result = po_sync.sync_text(KOREAN, text, _current())
    assert result.added == ()
    assert result.text == text


def test_exactly_the_missing_keys_are_added():
    result = po_sync.sync_text(KOREAN, KOREAN.read_text(encoding="utf-8"), _with_new_keys())
    assert result.added == tuple(key for key, _ in NEW)


def test_no_existing_line_is_moved_or_rewritten():
    text = KOREAN.read_text(encoding="utf-8")
    result = po_sync.sync_text(KOREAN, text, _with_new_keys())
    removed = [line for line in difflib.ndiff(text.splitlines(), result.text.splitlines()) if line.startswith("- ")]
    assert removed == []


def test_each_new_entry_follows_the_key_before_it_in_the_english_order():
    keys = [key for key, _ in _with_new_keys()]
    result = po_sync.sync_text(KOREAN, KOREAN.read_text(encoding="utf-8"), _with_new_keys())
    order = [entry.msgctxt for entry in polib.pofile(result.text) if not entry.obsolete]
    for key, _ in NEW:
        index, position = keys.index(key), order.index(key)
        assert (order[position - 1] if position else None) == (keys[index - 1] if index else None)


def test_new_entries_are_untranslated_with_their_english_intact():
    result = po_sync.sync_text(KOREAN, KOREAN.read_text(encoding="utf-8"), _with_new_keys())
    entries = {entry.msgctxt: entry for entry in polib.pofile(result.text)}
    for key, english in NEW:
        assert entries[key].msgid == english
        assert entries[key].msgstr == ""
        assert ("python-brace-format" in entries[key].flags) == ("{" in english)


def test_changed_english_is_reported_not_edited():
    english = [(key, text + " (changed)") if key == "load.not_utf8" else (key, text) for key, text in _current()]
    text = KOREAN.read_text(encoding="utf-8")
    result = po_sync.sync_text(KOREAN, text, english)
    assert result.english_changed == ("load.not_utf8",)
    assert result.text == text


def test_sync_file_writes_only_when_a_key_is_added(tmp_path):
    catalog = tmp_path / "ko.po"
    catalog.write_bytes(KOREAN.read_bytes())
    po_sync.sync_file(catalog, _current())
    assert catalog.read_bytes() == KOREAN.read_bytes()
    po_sync.sync_file(catalog, _with_new_keys())
    assert len(catalog.read_bytes()) > len(KOREAN.read_bytes())


def test_the_english_order_is_read_from_the_repository_itself():
    assert english_catalog.english(REPO) == list(messages.ENGLISH.items())


def test_an_assignments_sentences_are_synced_into_its_own_catalog_and_none_into_the_kits():
    """`i18n sync` in the kit: catalog/locale/ko.po gets the common sentences, each assignment's
    suites/messages_<assignment>.ko.po its own (sentences, hints' ideas, check names)."""
    files = dict(english_catalog.kit_translations(REPO, "ko"))
    assignments = [path.name.removeprefix("messages_").removesuffix(".ko.po") for path in files if path != KOREAN]
    assert "07_vmap_pytrees" in assignments and len(files) == len(assignments) + 1
    assert not [key for key, _ in files[KOREAN] if key.split(".", 1)[0] in assignments]
    own = files[REPO / "autograder" / "suites" / "messages_07_vmap_pytrees.ko.po"]
    assert own and all(key.startswith(("07_vmap_pytrees.", messages.CHECK_NAME_PREFIX)) for key, _ in own)
    every = sorted(key for keys in files.values() for key, _ in keys)
    assert every == sorted(messages.ENGLISH), "each sentence is translated in exactly one file"
