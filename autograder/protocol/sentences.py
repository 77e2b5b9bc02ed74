"""A catalog sentence crossing the child's pipe: its text, and its reference as typed data.

The child says its notes (a cell that raised, a magic skipped) in the run's
language; so that the parent can say them in another language too, each one
crosses as {"text", "message"}: the text, and the message's key and fields as
plain JSON (catalog/message_ref.py), never a pickled object. The parent reads
the message only as that data, says it itself from its own catalog, and takes
the child's text instead where the key is not in the catalog or the message
cannot be said with its fields (the child runs student code: what it sends is
data to check, and text at most).
"""

from __future__ import annotations

from autograder.catalog import messages
from autograder.catalog.message_ref import Message, Sentence


def to_wire(said: str) -> object:
    """`said` as JSON: a sentence as {"text", "message"}, any other text as a string."""
    if isinstance(said, Sentence):
        return {"text": str(said), "message": said.message.to_json()}
    return str(said)


def from_wire(raw: object) -> str:
    """What `to_wire` sent: a sentence the parent says again from its reference, else the text sent (anything
    else as its text, as a note always was read)."""
    if not isinstance(raw, dict):
        return str(raw)
    text = raw.get("text")
    try:
        return messages.sentence(Message.from_json(raw.get("message")))
    except (ValueError, RecursionError):
        return text if isinstance(text, str) else ""
