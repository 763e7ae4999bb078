"""Markdown files with YAML front matter, written and read back byte for byte.

python-frontmatter strips the body and reads YAML 1.1; for files holding
model text we need the exact text back, so this module splits the file
itself and parses the front matter with our own YAML dialect.
"""

from __future__ import annotations

from pathlib import Path

from ..text.naming import LeadsOut, read_in_project
from . import yamlio, yamlwrite

FENCE = "---\n"


def render(meta: dict, body: str) -> str:
    return f"{FENCE}{yamlwrite.dump(meta)}{FENCE}\n{body}"


def parse(text: str, source: Path, written: bool = False) -> tuple[dict, str]:
    """Front matter and body; ValueError names the file when it is malformed.

    A leading byte-order mark (Windows editors add one) is dropped, and a
    file whose fence ends in CRLF (git's autocrlf) is read with LF line
    ends throughout, as it was written.
    """
    front, body = _split(text, source)
    try:
        meta = yamlio.load(front, written) or {}
    except ValueError as exc:
        raise ValueError(f"{source}: front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{source}: front matter must be a mapping of fields")
    return meta, body[1:] if body.startswith("\n") else body


def _split(text: str, source: Path) -> tuple[str, str]:
    """The front matter's text and what follows its closing fence."""
    text = text.removeprefix("\ufeff")
    if text.startswith("---\r\n"):
        text = text.replace("\r\n", "\n")
    if not text.startswith(FENCE):
        raise ValueError(f"{source}: no front matter (the file must start with '---')")
    end = text.find("\n" + FENCE, len(FENCE) - 1)
    if end < 0:
        raise ValueError(f"{source}: front matter is not closed by a '---' line")
    return text[len(FENCE) : end + 1], text[end + 1 + len(FENCE) :]


def rewritten(text: str, meta: dict, source: Path) -> str:
    """A person's file `text` with its front matter now `meta`: every field whose value did not change keeps
    the lines it was written in (its comments and quoting with them), and the body is left as it was."""
    front, body = _split(text, source)
    return f"{FENCE}{yamlwrite.splice(front, meta)}{FENCE}{body}"


def read(path: Path, written: bool = False) -> tuple[dict, str]:
    """`written`: a file of ours, read with the fast YAML reader (see yamlio.load)."""
    try:
        text = read_text(path)
    except ValueError as exc:
        raise ValueError(f"{path}: cannot be read: {exc}") from None
    return parse(text, path, written)


MAX_BYTES = 16 * 1024 * 1024  # no Markdown file of a discussion or a question comes near it


def read_text(path: Path, limit: int = MAX_BYTES) -> str:
    """A text file's exact characters (no newline translation); ValueError saying why not, a link out of
    the project among them (`naming.leads_out`)."""
    try:
        # Bytes, not read_text: universal newlines would turn \r\n into \n.
        data = read_in_project(path, limit)
    except LeadsOut as exc:
        raise ValueError(f"a link out of the project (to {exc.target}); discuss reads nothing through one") from None
    except OSError as exc:
        raise ValueError(str(exc)) from None
    try:
        if len(data) > limit:
            raise ValueError(f"larger than {limit // (1024 * 1024)} MB")
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(str(exc)) from None
