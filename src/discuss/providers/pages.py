"""Fetching a web page once, to freeze it as a source: the policy every fetched page goes through.

A page is untrusted and so is where it points. So: http and https only, no
credentials in the address and none sent (no cookies, no proxy or netrc from
the environment); an address on this machine or a private network
(loopback, private ranges, link-local, and the like), checked on every hop,
is refused unless `allow_private` (a test server, an intranet page you
mean); at most `MAX_REDIRECTS` redirects, each recorded; a whole-request
deadline; at most `MAX_PAGE_BYTES`, counted as they arrive; only text, HTML
and PDF are kept. Every refusal is an InputError in words.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import socket
import time
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from ..errors import InputError
from ..text.secrets import mask_url

MAX_REDIRECTS = 5
MAX_PAGE_BYTES = 20 * 1024 * 1024
DEADLINE = 30.0  # seconds for the whole fetch, redirects included
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


def check_address(url: str, allow_private: bool) -> None:
    """InputError for an address that is not a plain public http(s) page, unless private ones are allowed."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise InputError(f"{url[:200]!r} is not a web address") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"{mask_url(url)}: only http and https pages are fetched")
    if parts.username or parts.password:
        raise InputError(f"{mask_url(url)}: an address with credentials in it is refused; no credential is sent")
    if allow_private:
        return
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)}
    except OSError as exc:
        raise InputError(f"{mask_url(url)}: the host cannot be found ({exc.strerror or exc})") from None
    for address in sorted(found):
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if not ip.is_global or ip.is_multicast:
            raise InputError(f"{mask_url(url)}: {parts.hostname} is an address on this machine or a private network "
                             f"({address}); such pages are fetched only with --allow-private")


def fetch(url: str, allow_private: bool = False, deadline: float = DEADLINE,
          max_bytes: int = MAX_PAGE_BYTES) -> Page:
    """The page at `url`, after its redirects, under the policy above."""
    import httpx

    ends, redirects, current = time.monotonic() + deadline, [], url
    with httpx.Client(follow_redirects=False, trust_env=False, timeout=deadline,
                      headers={"User-Agent": "discuss (freezing a source)", "Accept-Encoding": "identity"}) as client:
        for _ in range(MAX_REDIRECTS + 1):
            check_address(current, allow_private)
            try:
                with client.stream("GET", current) as response:
                    if response.is_redirect:
                        target = response.headers.get("location")
                        if not target:
                            raise InputError(f"{mask_url(current)}: a redirect to nowhere")
                        redirects.append(f"{response.status_code} {mask_url(current)}")
                        current = urljoin(current, target)
                        continue
                    return _page(url, current, response, redirects, ends, max_bytes)
            except httpx.HTTPError as exc:
                raise InputError(f"{mask_url(current)}: cannot be fetched ({type(exc).__name__}: {exc})") from None
    raise InputError(f"{mask_url(url)}: more than {MAX_REDIRECTS} redirects; give the final address")


def _page(url: str, final: str, response: object, redirects: list[str], ends: float, max_bytes: int) -> Page:
    import httpx

    assert isinstance(response, httpx.Response)
    if response.status_code >= 400:
        raise InputError(f"{mask_url(final)} answered {response.status_code}; nothing was kept")
    kind_of = response.headers.get("content-type", "").split(";")[0].strip().lower()
    kind = ACCEPTED.get(kind_of)
    if kind is None:
        raise InputError(f"{mask_url(final)} is {kind_of or 'of no stated type'}; only text, HTML and PDF are kept")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise InputError(f"{mask_url(final)} is {int(declared):,} bytes; at most {max_bytes:,} are kept")
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise InputError(f"{mask_url(final)} is larger than {max_bytes:,} bytes; at most that is kept")
        if time.monotonic() > ends:
            raise InputError(f"{mask_url(final)}: not read whole within the fetch's deadline")
        chunks.append(chunk)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Page(url, final, response.status_code, kind_of, kind, b"".join(chunks), stamp, redirects)
