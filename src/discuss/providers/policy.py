"""What a server may do to us, bounded the same way whichever client makes the request.

A redirect is never followed (a 3xx is an error naming where it pointed, so
a key and a prompt reach only the origin the panel names); a request has a
total deadline, not a timeout per read (a server that drips a byte a second
is stopped); a reply is read to `MAX_REPLY_BYTES` at most, counted on the
wire and again unpacked (a small compressed body cannot unpack to
gigabytes); only encodings we can unpack under that bound are asked for or
accepted, each layer of a body packed more than once unpacked a step at a
time under the same bound. No HTTP library is imported here: the clients
beneath (httpx's transport in http.py, the plain HTTP/1.1 connection in
plain_http.py, the one fetch of pages and search replies in fetch.py) apply
these rules to what they read.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from functools import cache
from typing import Any

from ..text.secrets import mask_url

# An answer is kilobytes; a broken or hostile server can send gigabytes well within a call's timeout.
MAX_REPLY_BYTES = 32 * 1024 * 1024
ENCODINGS = "gzip, deflate"


class PolicyError(Exception):
    """A reply the policy refuses; its words are the user's."""


class RedirectRefused(PolicyError):
    def __init__(self, status: int, url: str, location: str | None):
        from urllib.parse import urljoin

        try:
            target = mask_url(urljoin(url, location)) if location else "nowhere"
        except ValueError:  # a Location that is no address is still a redirect refused, in words
            target = "an address that cannot be read"
        super().__init__(f"{mask_url(url)} answered {status}, a redirect to {target}; redirects are never "
                         "followed (a key goes only to the address the panel names): give the final address")


class OversizedReply(PolicyError):
    def __init__(self, limit: int | None = None, what: str = "the provider's reply") -> None:
        super().__init__(f"{what} passed {limit or MAX_REPLY_BYTES:,} bytes and was not read further")
        self.limit = limit or MAX_REPLY_BYTES


class DeadlinePassed(PolicyError):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"no whole reply within {seconds:g}s (the request's deadline)")


@cache
def tls() -> Any:
    """The system's certificates, read once for every client, not once per client."""
    import ssl

    return ssl.create_default_context()


def endpoint_url(api_base: str, path: str = "/chat/completions") -> str:
    """`api_base` with `path` added to its path, its query kept (as the OpenAI client does)."""
    base, _, query = api_base.partition("?")
    return base.rstrip("/") + path + (f"?{query}" if query else "")


LAYERS = 2  # a server may pack a body twice (`gzip, gzip`); each layer more is one more unpacker held
STEP = 256 * 1024  # what one layer hands the next at a time: all a bomb ever gets to unpack before it is counted


class Unpacker:
    """A reply's body unpacked as it comes, refused past `limit` bytes on the wire or out of any layer.

    Each `Content-Encoding` layer is unpacked a step at a time and every step
    is counted before the next is made, so what a small body unpacks to is
    never held past the limit, however many times it was packed.
    """

    def __init__(self, encoding: str, limit: int | None = None, what: str = "the provider's reply"):
        self.limit, self.what = limit or MAX_REPLY_BYTES, what
        named = [e.strip().lower() for e in encoding.split(",")]
        named = [e for e in named if e not in ("", "identity")]
        if bad := [e for e in named if e not in ("gzip", "x-gzip", "deflate")]:
            raise PolicyError(f"{what} came in an encoding not asked for ({bad[0][:40]!r})")
        if len(named) > LAYERS:
            raise PolicyError(f"{what} came packed {len(named)} times ({encoding[:80]!r}); at most {LAYERS} "
                              "are unpacked")
        # Listed in the order they were applied: unpacked last first.
        self.layers = [zlib.decompressobj(16 + zlib.MAX_WBITS if "gzip" in e else zlib.MAX_WBITS)
                       for e in reversed(named)]
        self.sizes = [0] * len(self.layers)
        self.wire = self.unpacked = 0

    def feed(self, chunk: bytes) -> bytes:
        self.wire += len(chunk)
        if self.wire > self.limit:
            raise OversizedReply(self.limit, self.what)
        out = b"".join(self._through(0, chunk)) if self.layers else chunk
        self.unpacked += len(out)
        if self.unpacked > self.limit:
            raise OversizedReply(self.limit, self.what)
        return out

    def _through(self, depth: int, data: bytes) -> Iterator[bytes]:
        """`data` unpacked by layer `depth` and those after it, a step at a time."""
        if depth == len(self.layers):
            yield data
            return
        layer, pending = self.layers[depth], True
        while pending:
            try:
                out = layer.decompress(data, STEP)
            except zlib.error as exc:
                raise PolicyError(f"{self.what}'s compressed body cannot be unpacked: {exc}") from None
            data = layer.unconsumed_tail
            pending = bool(data) or len(out) == STEP  # a full step may leave output inside the unpacker
            self.sizes[depth] += len(out)
            if self.sizes[depth] > self.limit:
                raise OversizedReply(self.limit, self.what)
            if out:
                yield from self._through(depth + 1, out)


def refusal(exc: BaseException) -> PolicyError | None:
    """The policy's refusal behind an exception a client wrapped around it (litellm, the OpenAI SDK)."""
    seen: BaseException | None = exc
    for _ in range(12):
        if seen is None:
            return None
        if isinstance(seen, PolicyError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None
