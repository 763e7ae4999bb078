"""HTTP/1.1 to a plain `http` model server on asyncio's own streams, for the light client's calls.

Through httpx, each call to a server on this machine crossed httpx's client,
httpcore's pool and anyio's cancel scopes, and in an eval of thousands of
calls that cost more CPU than everything else discuss does per call. Here a
request is one write and the reply is parsed by h11 (the HTTP/1.1 parser
beneath httpx itself), under the same policy as every client (policy.py):
no redirect followed, one deadline for the whole request, the reply read to
the size limit on the wire and unpacked, only the encodings asked for.

A connection is kept for the member's next request while the server keeps
it open and for at most `keepalive` seconds idle (model servers close theirs
after five); one whose reply was not read to its end is closed, never
reused. `takes` says which addresses come here: plain `http`, no user name
or password in the address, no proxy the environment names for the host.
Everything else, and every call where `DISCUSS_CLIENT=httpx`, goes through
httpx (http.py).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote, urlsplit

import h11

from .policy import ENCODINGS, DeadlinePassed, PolicyError, RedirectRefused, Unpacker

READ_SIZE = 65536


class ConnectionFailed(Exception):
    """The connection could not be made, broke, or the server did not speak HTTP/1.1; worth asking again."""


def takes(url: str) -> bool:
    """Whether a request to `url` goes through this client rather than httpx."""
    return _takes(url, tuple(os.environ.get(name) for name in _SETTINGS))


# What decides it besides the address, read for every member of every run (the answer is kept while these
# stay the same). Proxies are read as urllib (and so httpx) reads them; where in doubt, httpx takes the call.
_SETTINGS = ("DISCUSS_CLIENT", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
             "REQUEST_METHOD")


@functools.lru_cache(maxsize=256)
def _takes(url: str, settings: tuple[str | None, ...]) -> bool:
    env = dict(zip(_SETTINGS, settings, strict=True))
    if env["DISCUSS_CLIENT"] == "httpx":
        return False
    parts = urlsplit(url)
    if parts.scheme.lower() != "http" or parts.username is not None or not parts.hostname:
        return False
    return not (_proxy(env, "http") or _proxy(env, "all")) or _bypassed(parts.hostname, _proxy(env, "no") or "")


def _proxy(env: dict[str, str | None], kind: str) -> str | None:
    """`kind`_proxy among `env`, the lower-case name first (set empty, it names none); the upper-case
    HTTP_PROXY is not read under CGI, where a request's `Proxy:` header would set it."""
    lower = env[f"{kind}_proxy"]
    if lower is not None:
        return lower or None
    if kind == "http" and env["REQUEST_METHOD"] is not None:
        return None
    return env[f"{kind.upper()}_PROXY"] or None


def _bypassed(host: str, no_proxy: str) -> bool:
    """Whether `no_proxy` leaves `host` out of the proxy, by a rule both urllib and httpx keep: `*`, the host
    itself, or a name it ends in (`.example.com` only what ends in it)."""
    host = host.lower()
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if entry == "*" or (entry and not entry.startswith(".") and host == entry):
            return True
        if entry and host.endswith(entry if entry.startswith(".") else f".{entry}"):
            return True
    return False


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.http = h11.Connection(our_role=h11.CLIENT)
        self.idle_since = time.monotonic()

    def reusable(self, now: float, keepalive: float) -> bool:
        # A server that closed the connection while it sat idle has sent its end: the reader is at EOF.
        return (now - self.idle_since < keepalive and not self.writer.is_closing()
                and not self.reader.at_eof() and self.http.our_state is h11.IDLE)

    async def next_event(self) -> Any:
        while (event := self.http.next_event()) is h11.NEED_DATA:
            self.http.receive_data(await self.reader.read(READ_SIZE))  # b"" when the server closed
        if isinstance(event, h11.ConnectionClosed):
            raise ConnectionFailed("the server closed the connection before its reply was whole")
        return event

    def close(self) -> None:
        self.writer.close()


class PlainClient:
    """The kept connections of one member to one server, and the requests that use them."""

    def __init__(self, base_url: str, keepalive: float):
        parts = urlsplit(base_url)
        self.keepalive = keepalive
        self.host, self.port = parts.hostname or "", parts.port or 80
        name = f"[{self.host}]" if ":" in self.host else self.host
        self.authority = name if self.port == 80 else f"{name}:{self.port}"
        self.idle: list[_Connection] = []
        self.is_closed = False

    def stream(self, method: str, url: str, *, json: Any, headers: dict[str, str], timeout: float) -> Exchange:
        return Exchange(self, method, url, json, headers, timeout)

    async def connection(self) -> _Connection:
        now = time.monotonic()
        while self.idle:
            kept = self.idle.pop()
            if kept.reusable(now, self.keepalive):
                return kept
            kept.close()
        return _Connection(*await asyncio.open_connection(self.host, self.port))

    def give_back(self, conn: _Connection) -> None:
        conn.http.start_next_cycle()
        conn.idle_since = time.monotonic()
        self.idle.append(conn)

    async def aclose(self) -> None:
        self.is_closed = True
        for conn in self.idle:
            conn.close()
        self.idle.clear()


def request_target(url: str) -> str:
    parts = urlsplit(url)
    path = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
    return path + (f"?{quote(parts.query, safe='/%:@!$&()*+,;=-._~?')}" if parts.query else "")


class Exchange:
    """One request (its body `payload` as JSON, none where it is None) and its reply, used as
    `async with client.stream(...) as reply`: the status and headers once it is entered, the body from
    `aiter_bytes`."""

    def __init__(self, client: PlainClient, method: str, url: str, payload: Any, headers: dict[str, str],
                 timeout: float):
        self.client, self.method, self.url, self.timeout = client, method, url, timeout
        self.body = b"" if payload is None else \
            json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        self.request_headers = headers
        self.ends = time.monotonic() + timeout
        self.conn: _Connection | None = None
        self.whole = False
        self.status_code = 0
        self.headers: dict[str, str] = {}

    def _request(self) -> h11.Request:
        fields = [("host", self.client.authority), ("accept", "*/*"), ("accept-encoding", ENCODINGS),
                  ("user-agent", "discuss"), *([("content-length", str(len(self.body)))] if self.body else []),
                  *((k, v) for k, v in self.request_headers.items() if k.lower() not in ("host", "content-length"))]
        return h11.Request(method=self.method, target=request_target(self.url), headers=fields)

    async def __aenter__(self) -> Exchange:
        try:
            async with asyncio.timeout(self.timeout):
                self.conn = conn = await self.client.connection()
                conn.writer.write(b"".join([conn.http.send(self._request()), conn.http.send(h11.Data(data=self.body)),
                                            conn.http.send(h11.EndOfMessage())]))
                await conn.writer.drain()
                while isinstance(head := await conn.next_event(), h11.InformationalResponse):
                    pass
        except BaseException as exc:
            self._drop()
            raise _named(exc, self.timeout)  # noqa: B904 - the system's error stays as the cause
        self.status_code = head.status_code
        self.headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in head.headers}
        try:
            if 300 <= self.status_code < 400:
                raise RedirectRefused(self.status_code, self.url, self.headers.get("location"))
            self.unpacker = Unpacker(self.headers.get("content-encoding", ""))
        except PolicyError:
            self._drop()
            raise
        return self

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        conn = self.conn
        assert conn is not None, "entered first"
        while not self.whole:
            left = self.ends - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                async with asyncio.timeout(left):
                    event = await conn.next_event()
            except BaseException as exc:
                self._drop()
                raise _named(exc, self.timeout)  # noqa: B904
            if isinstance(event, h11.Data):
                if out := self.unpacker.feed(event.data):
                    yield out
            elif isinstance(event, h11.EndOfMessage):
                self.whole = True

    async def __aexit__(self, *exc: Any) -> None:
        conn, self.conn = self.conn, None
        if conn is None:
            return
        if conn.http.our_state is h11.DONE and conn.http.their_state is h11.DONE \
                and not self.client.is_closed:
            self.client.give_back(conn)
        else:  # a reply not read to its end, or one the server ends by closing: the connection goes with it
            conn.close()

    def _drop(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def _named(exc: BaseException, seconds: float) -> BaseException:
    """What a failure inside a request is to the caller: the deadline passed, the connection failed (with
    the system's error kept as the cause, which names a refused connection or an unknown host), or itself."""
    if isinstance(exc, TimeoutError):
        return DeadlinePassed(seconds)
    if isinstance(exc, h11.LocalProtocolError):  # its words may quote a header, and a header may hold a key
        return ConnectionFailed("the request could not be sent as HTTP/1.1 (a header or the address holds "
                                "characters HTTP forbids)")
    if isinstance(exc, OSError | h11.RemoteProtocolError | ConnectionFailed):
        failed = exc if isinstance(exc, ConnectionFailed) else ConnectionFailed(f"{type(exc).__name__}: {exc}")
        failed.__cause__ = exc
        return failed
    return exc
