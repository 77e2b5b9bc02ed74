"""A catalog sentence as a reference: its key and its fields, to be said in any language later.

`messages.text(key, **fields)` says a sentence in the run's language at once, and
returns it as a `Sentence`: a str, so every caller keeps working with text, that
also carries the `Message` it was said from. A failure keeps those references,
and each output (results.json, the terminal, JUnit, ...) says the failure in
the language it wants (`messages.said_in`), without editing text.

A field is kept as data: a nested sentence as its own Message (a hint inside a
piece of advice), str, int, float, bool and None as they are (the values a
student's program gave are said as given, in every language), and any other
object (a NumPy number, a dtype, a path; a NaN or an infinity, which strict JSON
cannot hold) as a `Literal`: the text it was formatted to, with the template's
format spec, when the sentence was said.
A Message is plain JSON data both ways (`to_json`, `from_json`), never a
pickled object: results.json and the student package's processes carry it.
"""

from __future__ import annotations

import dataclasses
import math
import string
from collections.abc import Mapping
from typing import Union


@dataclasses.dataclass(frozen=True)
class Literal:
    """A field's value as it was formatted when its sentence was first said; said as is in every language."""

    text: str


Field = Union["Message", Literal, str, int, float, bool, None]
MAX_DEPTH = 8  # messages inside messages: the catalog's nest two or three deep
_PLAIN = (str, int, float, bool, type(None))


@dataclasses.dataclass(frozen=True)
class Message:
    """A catalog sentence by reference.

    Attributes:
        key: its catalog key (messages.ENGLISH, a hint of hint_ideas, or a check name's "check_name." key).
        fields: its fields in order, each plain data, a Literal or a nested Message.
        level: for a hint, the hint level it was said at (the same in every language); else None.
    """

    key: str
    fields: tuple[tuple[str, Field], ...] = ()
    level: str | None = None

    def to_json(self) -> dict:
        """{"key", "fields": {name: value}, "level"?}: a nested Message so, a Literal as {"literal": text}."""
        data: dict[str, object] = {"key": self.key, "fields": {name: _field_json(value) for name, value in self.fields}}
        if self.level is not None:
            data["level"] = self.level
        return data

    @classmethod
    def from_json(cls, data: object, depth: int = 0) -> Message:
        """What `to_json` wrote; a ValueError for anything else, or nested deeper than MAX_DEPTH (the key is
        not checked here: messages.sentence)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("key"), str):
            raise ValueError("a message is a JSON object with a string key")
        if depth > MAX_DEPTH:
            raise ValueError(f"a message nested more than {MAX_DEPTH} deep")
        fields, level = data.get("fields", {}), data.get("level")
        if not isinstance(fields, Mapping) or not all(isinstance(name, str) for name in fields):
            raise ValueError(f"the fields of {data['key']!r} are not a JSON object")
        if level is not None and not isinstance(level, str):
            raise ValueError(f"the hint level of {data['key']!r} is not a string")
        return cls(data["key"], tuple((name, _field_from_json(value, depth)) for name, value in fields.items()),
                   level)

    def keys(self) -> list[str]:
        """Its key and its nested messages' keys, outermost first."""
        return [self.key, *(key for _, value in self.fields if isinstance(value, Message) for key in value.keys())]


class Sentence(str):
    """A sentence said in the run's language that keeps the `Message` it was said from."""

    message: Message

    def __new__(cls, said: str, message: Message) -> Sentence:
        sentence = super().__new__(cls, said)
        sentence.message = message
        return sentence

    def __reduce__(self):
        return (Sentence, (str(self), self.message))


def reference(key: str, fields: Mapping[str, object], template: str, level: str | None = None) -> Message:
    """The Message of `key` said with `fields` from `template`: fields kept as data (see the module's docstring)."""
    specs = _specs(template) if not all(_is_plain(value) for value in fields.values()) else {}
    return Message(key, tuple((name, _field(value, specs.get(name, ("", None)))) for name, value in fields.items()),
                   level)


# The key of sentences said one after another (`joined`): its fields are the separator, then the parts in order.
JOINED = "(joined)"


def joined(separator: str, *parts: str) -> str:
    """`parts` said one after another, `separator` between them, as one text that keeps each catalog sentence's
    reference (a sentence and the student's own text after it, several sentences as one detail)."""
    said = separator.join(parts)
    if not any(isinstance(part, Sentence) for part in (separator, *parts)):
        return said
    fields = tuple((name, _field(part, ("", None))) for name, part in (("separator", separator), *(
        (str(index), part) for index, part in enumerate(parts))))
    return Sentence(said, Message(JOINED, fields))


# The key of a sentence said without some closing characters (`trimmed`): its fields are the sentence, then them.
TRIMMED = "(trimmed)"


def trimmed(said: str, chars: str) -> str:
    """`said` without `chars` at its end (a sentence quoted inside another, without its period), said so in
    every language."""
    if not isinstance(said, Sentence):
        return said.rstrip(chars)
    return Sentence(said.rstrip(chars), Message(TRIMMED, (("sentence", said.message), ("chars", chars))))


def said_trimmed(fields: Mapping[str, object]) -> str:
    """A TRIMMED message, its sentence already said in a language."""
    return str(fields["sentence"]).rstrip(str(fields["chars"]))


def said_joined(fields: Mapping[str, object]) -> str:
    """A JOINED message's parts, already said in a language, said as one text."""
    separator, *parts = fields.values()
    return str(separator).join(str(part) for part in parts)


def fill(template: str, fields: Mapping[str, object]) -> str:
    """`template` with `fields` filled in, as str.format does; a Literal is said as it was formatted."""
    return _FORMATTER.vformat(template, (), fields)


def _field(value: object, spec: tuple[str, str | None]) -> Field:
    if isinstance(value, Sentence):
        return value.message
    if _is_plain(value):
        return value  # type: ignore[return-value]
    format_spec, conversion = spec
    converted = repr(value) if conversion == "r" else ascii(value) if conversion == "a" else (
        str(value) if conversion == "s" else value)
    return Literal(format(converted, format_spec))


def _is_plain(value: object) -> bool:
    """Whether `value` is kept as it is: str, int, float, bool or None (a NaN or an infinity is not: strict JSON,
    which Gradescope reads, has no token for it; it is kept as its text)."""
    return type(value) in _PLAIN and not (type(value) is float and not math.isfinite(value))  # type: ignore[arg-type]


def _specs(template: str) -> dict[str, tuple[str, str | None]]:
    """Each field of `template`: its format spec and conversion, where it is first used."""
    specs: dict[str, tuple[str, str | None]] = {}
    for _, name, format_spec, conversion in string.Formatter().parse(template):
        if name:
            specs.setdefault(name, (format_spec or "", conversion))
    return specs


def _field_json(value: Field) -> object:
    if isinstance(value, Message):
        return value.to_json()
    if isinstance(value, Literal):
        return {"literal": value.text}
    return value


def _field_from_json(value: object, depth: int) -> Field:
    if isinstance(value, Mapping):
        if set(value) == {"literal"} and isinstance(value["literal"], str):
            return Literal(value["literal"])
        return Message.from_json(value, depth + 1)
    if isinstance(value, _PLAIN):
        return value
    raise ValueError(f"a message field is not plain data: {type(value).__name__}")


class _Formatter(string.Formatter):
    """str.format, but a Literal is its text whatever the spec and conversion (it was formatted with them)."""

    def convert_field(self, value, conversion):
        return value if isinstance(value, Literal) else super().convert_field(value, conversion)

    def format_field(self, value, format_spec):
        return value.text if isinstance(value, Literal) else super().format_field(value, format_spec)


_FORMATTER = _Formatter()
