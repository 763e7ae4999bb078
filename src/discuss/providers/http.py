"""httpx under the one policy (policy.py): the clients of litellm, of OpenAI's hosted API and of servers
behind a proxy, doctor's probes, warm-ups.

The policy is applied in the transport beneath the clients, so no client's
defaults can loosen it.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

from .policy import ENCODINGS, DeadlinePassed, PolicyError, RedirectRefused, Unpacker, tls


def deadline_of(request: httpx.Request) -> float:
    """The request's whole time: the largest of the timeouts its client set (they are all the call's timeout)."""
    timeout = request.extensions.get("timeout") or {}
    values = [v for v in timeout.values() if isinstance(v, int | float)]
    return float(max(values)) if values else 600.0


def _checked(request: httpx.Request, response: httpx.Response) -> Unpacker:
    if 300 <= response.status_code < 400:
        raise RedirectRefused(response.status_code, str(request.url), response.headers.get("location"))
    return Unpacker(response.headers.get("content-encoding", ""))


def _plain_headers(response: httpx.Response) -> httpx.Headers:
    headers = httpx.Headers(response.headers)
    for name in ("content-encoding", "content-length"):  # unpacked here: the client must not unpack again
        headers.pop(name, None)
    return headers


class _GuardedAsyncStream(httpx.AsyncByteStream):
    def __init__(self, raw: httpx.Response, unpacker: Unpacker, ends: float, seconds: float):
        self.raw, self.unpacker, self.ends, self.seconds = raw, unpacker, ends, seconds

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = self.raw.aiter_raw()
        while True:
            left = self.ends - time.monotonic()
            if left <= 0:
                raise DeadlinePassed(self.seconds)
            try:
                async with asyncio.timeout(left):  # a timer, not a task for each chunk as wait_for makes
                    chunk = await chunks.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise DeadlinePassed(self.seconds) from None
            if out := self.unpacker.feed(chunk):
                yield out

    async def aclose(self) -> None:
        await self.raw.aclose()


class GuardedAsyncTransport(httpx.AsyncBaseTransport):
    """httpx's transport under the policy; a transport of its own for each event loop, since connections are."""

    def __init__(self, **options: Any):
        self.options = options
        self.inner: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, httpx.AsyncHTTPTransport]] = \
            weakref.WeakKeyDictionary()

    def _inner(self, scheme: str) -> httpx.AsyncHTTPTransport:
        """The loop's transport for `scheme`: a plain `http` server (one on this machine) never needs the
        system's certificates, whose reading was a twentieth of a second before a run's first request."""
        kept = self.inner.setdefault(asyncio.get_running_loop(), {})
        if (transport := kept.get(scheme)) is None:
            transport = kept[scheme] = httpx.AsyncHTTPTransport(verify=tls() if scheme != "http" else False,
                                                                **self.options)
        return transport

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        seconds = deadline_of(request)
        ends = time.monotonic() + seconds
        request.headers["accept-encoding"] = ENCODINGS
        try:
            async with asyncio.timeout(seconds):
                raw = await self._inner(request.url.scheme).handle_async_request(request)
        except TimeoutError:
            raise DeadlinePassed(seconds) from None
        try:
            unpacker = _checked(request, raw)
        except PolicyError:
            await raw.aclose()
            raise
        return httpx.Response(raw.status_code, headers=_plain_headers(raw),
                              stream=_GuardedAsyncStream(raw, unpacker, ends, seconds),
                              extensions=raw.extensions)

    async def aclose(self) -> None:
        for kept in list(self.inner.values()):
            for transport in kept.values():
                await transport.aclose()


class _GuardedSyncStream(httpx.SyncByteStream):
    def __init__(self, raw: httpx.Response, unpacker: Unpacker, ends: float, seconds: float):
        self.raw, self.unpacker, self.ends, self.seconds = raw, unpacker, ends, seconds

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.raw.iter_raw():
            if time.monotonic() > self.ends:  # each read is bounded by the client's timeout, the whole here
                raise DeadlinePassed(self.seconds)
            if out := self.unpacker.feed(chunk):
                yield out

    def close(self) -> None:
        self.raw.close()


class GuardedSyncTransport(httpx.BaseTransport):
    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport(verify=tls())

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        seconds = deadline_of(request)
        ends = time.monotonic() + seconds
        request.headers["accept-encoding"] = ENCODINGS
        raw = self._head(request, seconds)
        try:
            unpacker = _checked(request, raw)
        except PolicyError:
            raw.close()
            raise
        return httpx.Response(raw.status_code, headers=_plain_headers(raw),
                              stream=_GuardedSyncStream(raw, unpacker, ends, seconds), extensions=raw.extensions)

    def _head(self, request: httpx.Request, seconds: float) -> httpx.Response:
        """The reply's head within the deadline: httpx's timeout restarts with every byte, so a server that
        drips its headers is cut off by a timer here, its connection closed under the waiting thread."""
        from concurrent.futures import ThreadPoolExecutor
        from concurrent.futures import TimeoutError as Late

        pool = ThreadPoolExecutor(1)
        try:
            return pool.submit(self.inner.handle_request, request).result(timeout=seconds)
        except Late:
            self.inner.close()
            raise DeadlinePassed(seconds) from None
        finally:
            pool.shutdown(wait=False)

    def close(self) -> None:
        self.inner.close()


def async_client(**limits: Any) -> httpx.AsyncClient:
    """A client under the policy; `limits` as httpx.Limits takes them."""
    return httpx.AsyncClient(transport=GuardedAsyncTransport(limits=httpx.Limits(**limits)) if limits
                             else GuardedAsyncTransport(), follow_redirects=False)


def get(url: str, headers: dict[str, str], seconds: float) -> httpx.Response:
    """A GET under the policy, read whole within `seconds` (doctor's probes)."""
    with httpx.Client(transport=GuardedSyncTransport(), follow_redirects=False, timeout=seconds) as client:
        response = client.get(url, headers=headers)
        response.read()
        return response


def warm_up() -> None:
    """Import what a client's first connection imports (httpcore's HTTP/1.1 and HTTP/2, anyio's event loop
    backend): a tenth of a second that must not be spent inside the first call's deadline."""
    import importlib

    for name in ("anyio._backends._asyncio", "httpcore._backends.anyio", "httpcore._async.http11",
                 "httpcore._async.http2"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # a version that moved or dropped it: its first call imports what it needs
