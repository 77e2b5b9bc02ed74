"""The autograded notebook holds nothing a browser runs: what the formgrader and feedback pages show is inert.

nbgrader's formgrader shows each autograded notebook as HTML in the
instructor's browser, on the Jupyter server's own origin, with its grading
API a request away; generate_feedback renders the same notebook for the
student. nbconvert writes `text/html`, `text/markdown`, `image/svg+xml`,
`application/javascript` and widget outputs, and the raw HTML of markdown
cells, into those pages as they are. A stub notebook whose output was a
script once set its author's score above the maximum and a classmate's to 0
through that API while the instructor looked at it.

KeepInertOutputs, an autograde step after the sandboxed grading, keeps of a
notebook only what renders as text or as a bitmap:
- each output's `text/plain`, PNG, JPEG and GIF data (base64, checked), and
  stream and error outputs, which nbconvert escapes; nothing else;
- markdown with its `<` written as `&lt;` outside code spans and fences, so
  raw HTML shows as text; attachments only as bitmaps;
- no raw cell formats, and no widget state in the notebook's metadata.
The points nbgrader reads (a check cell's `text/plain` value) are untouched.
"""

from __future__ import annotations

import re

from nbgrader.preprocessors import NbGraderPreprocessor

INERT_DATA = frozenset({"text/plain", "image/png", "image/jpeg", "image/gif"})
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
# What of a markdown cell is code, where `<` is already shown as written: fences and inline spans.
_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.DOTALL)


class KeepInertOutputs(NbGraderPreprocessor):
    """Drop every output, markdown construct and metadata entry a browser would run (see the module)."""

    def preprocess(self, nb, resources):
        nb.metadata.pop("widgets", None)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = [kept for kept in map(inert_output, cell.get("outputs", [])) if kept is not None]
            elif cell.cell_type == "markdown":
                cell.source = inert_markdown(cell.source)
            elif cell.cell_type == "raw":  # nbconvert copies a raw cell marked text/html into the page as it is
                cell.metadata.pop("format", None)
                cell.metadata.pop("raw_mimetype", None)
            if "attachments" in cell:
                cell.attachments = {name: _inert_data(bundle) for name, bundle in cell.attachments.items()
                                    if _inert_data(bundle)}
        return nb, resources


def inert_output(output):
    """`output` with only inert data, or None when nothing of it is left."""
    if output.get("output_type") not in ("display_data", "execute_result"):
        return output  # stream and error: text that nbconvert escapes
    output.data = _inert_data(output.get("data", {}))
    output.metadata = {}
    if not output.data and output.output_type == "display_data":
        return None
    return output


def inert_markdown(source: str) -> str:
    """`source` with raw HTML shown as text: every `<` outside code written `&lt;`."""
    parts = _CODE.split(source)
    return "".join(part if index % 2 else part.replace("<", "&lt;") for index, part in enumerate(parts))


def _inert_data(bundle: dict) -> dict:
    kept = {}
    for mime, value in bundle.items():
        if mime not in INERT_DATA:
            continue
        if mime != "text/plain" and not (isinstance(value, str) and _BASE64.fullmatch(value)):
            continue  # a bitmap that is not base64 could close the page's attribute it is written into
        kept[mime] = value
    return kept
