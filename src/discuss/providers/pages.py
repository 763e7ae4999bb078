"""Fetching a web page once, to freeze it as a source: the policy every fetched page goes through.

A page is untrusted and so is where it points. So: http and https only, no
credentials in the address and none sent (no cookies, no proxy or netrc from
the environment); an address on this machine or a private network
(loopback, private ranges, link-local, and the like) is refused unless
`allow_private` (a test server, an intranet page you mean), checked on every
hop where the connection is made (fetch.py: the name resolved once, the
connection made to the address checked); at most `MAX_REDIRECTS` redirects,
each recorded, each `Location` read and refused in words unless it is an
http(s) address; one deadline for the whole fetch, redirects included; at
most `MAX_PAGE_BYTES`, counted as they arrive and as each layer unpacks;
only text, HTML and PDF are kept, with the charset the page declares. Every
refusal is an InputError in words.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from dataclasses import dataclass, field
from urllib.parse import quote, urljoin, urlsplit

from ..errors import InputError
from ..text.secrets import mask_url
from .fetch import Exchange
from .policy import OversizedReply, PolicyError

MAX_REDIRECTS = 5
MAX_PAGE_BYTES = 20 * 1024 * 1024
DEADLINE = 30.0  # seconds for the whole fetch, redirects included
CONTROLS = re.compile("[\x00-\x20\x7f-\x9f]")
ACCEPTED = {"text/html": "html", "application/xhtml+xml": "html", "text/plain": "text", "text/markdown": "text",
            "application/pdf": "pdf"}


@dataclass
class Page:
    url: str
    final_url: str
    status: int
    content_type: str
    kind: str  # html, text or pdf
    data: bytes
    fetched_at: str
    redirects: list[str] = field(default_factory=list)
    charset: str | None = None  # as the Content-Type header declares it


def fetch(url: str, allow_private: bool = False, deadline: float = DEADLINE,
          max_bytes: int | None = None) -> Page:
    """The page at `url`, after its redirects, under the policy above."""
    limit = max_bytes or MAX_PAGE_BYTES
    ends, redirects, current = time.monotonic() + deadline, [], _address(url)
    for _ in range(MAX_REDIRECTS + 1):
        try:
            with Exchange("GET", current, ends=ends, seconds=deadline, limit=limit, allow_private=allow_private,
                          headers={"User-Agent": "discuss (freezing a source)"}, what="the page") as reply:
                if 300 <= reply.status < 400:
                    redirects.append(f"{reply.status} {mask_url(current)}")
                    current = _redirected(current, reply.headers.get("location"))
                    continue
                kind_of, charset = _kind(current, reply.status, reply.headers)
                if (declared := reply.headers.get("content-length", "")).isdigit() and int(declared) > limit:
                    raise InputError(f"{mask_url(current)} is {int(declared):,} bytes; at most {limit:,} are kept")
                data = reply.read()
        except OversizedReply:
            raise InputError(f"{mask_url(current)} is larger than {limit:,} bytes; at most that is kept") from None
        except PolicyError as exc:
            raise InputError(f"{mask_url(current)}: {exc}") from None
        stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return Page(url, current, reply.status, kind_of, ACCEPTED[kind_of], data, stamp, redirects, charset)
    raise InputError(f"{mask_url(url)}: more than {MAX_REDIRECTS} redirects; give the final address")


def _redirected(current: str, location: str | None) -> str:
    """Where a redirect points, read as an address; InputError in words where it is none, or not http(s)."""
    if not location or not location.strip():
        raise InputError(f"{mask_url(current)}: a redirect to nowhere")
    try:
        target = _address(urljoin(current, location.strip()))
        parts = urlsplit(target)
        parts.port  # noqa: B018 - a port that is no number is found here, not at the next hop
    except ValueError:
        raise InputError(f"{mask_url(current)}: a redirect to an address that cannot be read; nothing was "
                         "kept") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise InputError(f"{mask_url(current)}: a redirect to a {parts.scheme.lower()[:20] or 'relative'}: "
                         "address; only http and https pages are fetched, nothing was kept")
    return target


def _address(url: str) -> str:
    """`url` with each space and control character percent-encoded, as a browser sends it: an address that
    is recorded and printed holds nothing a terminal would take as a command."""
    return CONTROLS.sub(lambda m: quote(m.group(), safe=""), url)


def _kind(url: str, status: int, headers: dict[str, str]) -> tuple[str, str | None]:
    """The page's type and declared charset; InputError for a status or type that is not kept."""
    if status >= 400:
        raise InputError(f"{mask_url(url)} answered {status}; nothing was kept")
    kind_of, *params = [p.strip() for p in headers.get("content-type", "").split(";")]
    kind_of = kind_of.lower()
    if kind_of not in ACCEPTED:
        raise InputError(f"{mask_url(url)} is {kind_of[:80] or 'of no stated type'}; only text, HTML and PDF "
                         "are kept")
    charset = next((p.split("=", 1)[1].strip().strip("\"'") for p in params
                    if p.lower().startswith("charset=")), None)
    return kind_of, charset or None
