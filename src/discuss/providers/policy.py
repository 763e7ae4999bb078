"""What a server may do to us, bounded the same way whichever client makes the request.

A redirect is never followed (a 3xx is an error naming where it pointed, so
a key and a prompt reach only the origin the panel names); a request has a
total deadline, not a timeout per read (a server that drips a byte a second
is stopped); a reply is read to `MAX_REPLY_BYTES` at most, counted on the
wire and again unpacked (a small compressed body cannot unpack to
gigabytes); only encodings we can unpack under that bound are asked for or
accepted. No HTTP library is imported here: the clients beneath (httpx's
transport in http.py, the plain HTTP/1.1 connection in plain_http.py) apply
these rules to what they read.
"""

from __future__ import annotations

import zlib

from ..text.secrets import mask_url

# An answer is kilobytes; a broken or hostile server can send gigabytes well within a call's timeout.
MAX_REPLY_BYTES = 32 * 1024 * 1024
ENCODINGS = "gzip, deflate"


class PolicyError(Exception):
    """A reply the policy refuses; its words are the user's."""


class RedirectRefused(PolicyError):
    def __init__(self, status: int, url: str, location: str | None):
        from urllib.parse import urljoin

        target = mask_url(urljoin(url, location)) if location else "nowhere"
        super().__init__(f"{mask_url(url)} answered {status}, a redirect to {target}; redirects are never "
                         "followed (a key goes only to the address the panel names): give the final address")


class OversizedReply(PolicyError):
    def __init__(self) -> None:
        super().__init__(f"the provider's reply passed {MAX_REPLY_BYTES:,} bytes and was not read further")


class DeadlinePassed(PolicyError):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"no whole reply within {seconds:g}s (the request's deadline)")


def endpoint_url(api_base: str, path: str = "/chat/completions") -> str:
    """`api_base` with `path` added to its path, its query kept (as the OpenAI client does)."""
    base, _, query = api_base.partition("?")
    return base.rstrip("/") + path + (f"?{query}" if query else "")


class Unpacker:
    """A reply's body unpacked as it comes, refused past `MAX_REPLY_BYTES` on the wire or unpacked."""

    def __init__(self, encoding: str):
        encoding = encoding.strip().lower()
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            raise PolicyError(f"the reply came in an encoding not asked for ({encoding[:40]!r})")
        self.wire = self.unpacked = 0
        self.inflate = None if encoding in ("", "identity") else \
            zlib.decompressobj(16 + zlib.MAX_WBITS if "gzip" in encoding else zlib.MAX_WBITS)

    def feed(self, chunk: bytes) -> bytes:
        self.wire += len(chunk)
        if self.wire > MAX_REPLY_BYTES:
            raise OversizedReply()
        if self.inflate is None:
            out = chunk
        else:
            try:
                out = self.inflate.decompress(chunk, MAX_REPLY_BYTES - self.unpacked + 1)
            except zlib.error as exc:
                raise PolicyError(f"the reply's compressed body cannot be unpacked: {exc}") from None
            if self.inflate.unconsumed_tail:
                raise OversizedReply()
        self.unpacked += len(out)
        if self.unpacked > MAX_REPLY_BYTES:
            raise OversizedReply()
        return out


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
