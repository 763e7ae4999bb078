"""Keeping keys out of what we write: every reply and error text passes through `scrub`.

Keys live in the environment, and in the `.env` files a project keeps
beside it (read, never written). A provider may echo a key whole or in
part, so a key-like token (a run of letters, digits and `-_./+=`) that
holds `MIN_RUN` characters of a key's random part is replaced whole. A
key's public prefix (`sk-`, `sk-proj-`, `sk-ant-api03-`) is left out of
the comparison, so text that merely names a key format is kept. URLs lose
their user, password and query values; a credential inside a panel's
server address is scrubbed wherever it appears, with or without its URL.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..domain import Panelist
from .naming import read_in_project

SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")
SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.IGNORECASE)
MIN_SECRET = 6
# A run of this many characters of a key's random part is taken as a leak of it.
MIN_RUN = 8
TOKEN = re.compile(rf"[A-Za-z0-9_\-.+/=]{{{MIN_RUN},}}")
PREFIX = re.compile(r"^[a-z]{2,5}[-_](?:[a-z0-9]{2,8}[-_]){0,2}")
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s\"'<>]+", re.IGNORECASE)
CREDENTIAL_PARAMS = re.compile(r"(token|key|secret|password|passwd|sig|signature|auth|credential)", re.IGNORECASE)

# The shapes of keys and tokens providers issue: caught by their look even where no variable holds them
# (pasted into a field, echoed by a server). OpenAI and Anthropic, Google, GitHub, Slack, AWS, Hugging Face.
KEY_SHAPE = re.compile(
    r"\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|github_pat_[A-Za-z0-9_]{30,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|hf_[A-Za-z0-9]{30,})")

ENV_BYTES = 1 << 20  # of a .env file, what is read: no file of keys comes near it
_project: list[str] = []  # keys read from the project's .env files
_urls: list[str] = []  # credentials inside the panels' server addresses (`?key=...`, `user:password@`)


def remember_project(root: Path) -> None:
    """Learn the keys of the project's `.env` files, so a provider echoing one is scrubbed too."""
    found = []
    for folder in (root, root / "discussions"):
        for path in sorted(folder.glob(".env*")) if folder.is_dir() else []:
            if not path.is_file():
                continue  # a device or a folder
            try:  # a link out of the project (from a pull request) is never read
                lines = read_in_project(path, ENV_BYTES)[:ENV_BYTES].decode("utf-8", "replace").splitlines()[:10_000]
            except OSError:
                continue
            for line in lines:
                name, sep, value = line.strip().removeprefix("export ").partition("=")
                value = value.strip().strip("'\"")
                if sep and SECRET_NAME.search(name) and len(value) >= MIN_SECRET:
                    found.append(value)
    _project[:] = found


def url_secrets(url: str | None) -> list[str]:
    """The credentials a URL carries: its password, and the values of credential-shaped query parameters."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
        found = [parts.password or ""]
    except ValueError:
        return []
    found += [v for k, v in parse_qsl(parts.query, keep_blank_values=True) if CREDENTIAL_PARAMS.search(k)]
    return [v for v in found if len(v) >= MIN_SECRET]


def remember_urls(urls: list[str | None]) -> None:
    """Learn the credentials in the panels' server addresses, so a server echoing one is scrubbed too."""
    _urls[:] = sorted({s for url in urls for s in url_secrets(url)})


def known_secrets(p: Panelist | None = None) -> list[str]:
    names = [p.api_key_env] if p is not None and p.api_key_env else []
    names += [n for n in os.environ if n.endswith(SUFFIXES)]
    found = [os.environ[n] for n in names if n and len(os.environ.get(n, "")) >= MIN_SECRET]
    found += url_secrets(p.api_base) if p is not None else []
    return found + [s for s in [*_project, *_urls] if s not in found]


def _windows(secret: str) -> set[str]:
    prefix = PREFIX.match(secret)
    body = secret[prefix.end():] if prefix else secret
    if len(body) < MIN_RUN:
        return {secret}  # too short to tell a part of it from chance: only the whole key counts
    return {body[i:i + MIN_RUN] for i in range(len(body) - MIN_RUN + 1)}


def leaked_spans(text: str, secret: str) -> list[tuple[int, int]]:
    """Spans of the key-like tokens of `text` that hold a whole key or MIN_RUN characters of its random part."""
    windows = _windows(secret)
    if not any(w in text for w in windows):  # substring search in C: the common case costs little
        return []
    spans = []
    for token in TOKEN.finditer(text):
        if any(w in token.group() for w in windows):
            spans.append(token.span())
    return spans


def mask_url(url: str) -> str:
    """A URL fit to print: no user or password, and no value of its query (where gateways take keys)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "[a URL that cannot be read]"
    netloc = ("***@" if parts.username or parts.password else "") + host + port
    query = urlencode([(k, "***") for k, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def looks_like_key(value: str) -> bool:
    """True where `value` has the shape of a key or token some provider issues."""
    return KEY_SHAPE.search(value) is not None


def scrub(text: str, p: Panelist | None = None) -> str:
    text = KEY_SHAPE.sub("[redacted]", text)
    if "://" in text:
        text = URL.sub(lambda m: mask_url(m.group()) if ("@" in m.group() or "?" in m.group()) else m.group(), text)
    for secret in known_secrets(p):
        text = text.replace(secret, "[redacted]")
        for start, end in reversed(leaked_spans(text, secret)):
            text = text[:start] + "[redacted]" + text[end:]
    return text
