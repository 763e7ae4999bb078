"""One request to an address from outside (a web page, a search endpoint), checked where it connects.

The host's name is resolved once per request; every address it answers is
checked (unless private ones are allowed, an address on this machine or a
private network is refused) and the connection goes to an address so
checked, the name kept for the `Host` header and for TLS (the name sent and
the certificate's check): no name can answer one address to the check and
another to the connection. The exchange runs under one deadline, from the
name's lookup to the last byte read: every wait (the resolver, on a timer;
the connection, TLS's handshake, each byte of the head and the body) waits
only for what is left of it, so a server that drips its headers cannot
stretch it. The head is bounded by h11 (its limit on an incomplete event),
the body by the policy's Unpacker (policy.py): counted on the wire and out
of each layer it was packed in, as it streams. HTTP/1.1, no proxy, cookie or
credential; one connection per request, closed after it. Every refusal is a
PolicyError in words, which the caller prefixes with the address it asked
for.
"""

from __future__ import annotations

import errno
import ipaddress
import selectors
import socket
import ssl
import time
from typing import Any
from urllib.parse import urlsplit

import h11

from .plain_http import request_target
from .policy import ENCODINGS, DeadlinePassed, OversizedReply, PolicyError, Unpacker, tls

READ_SIZE = 65536
HEAD_BYTES = 64 * 1024  # a reply's status line and headers; more is no page's


class Unreachable(PolicyError):
    """The host could not be found or connected to, or the connection broke."""


def origin(url: str) -> tuple[str, str, int]:
    """`url`'s scheme, host and port; PolicyError where it is no plain http(s) address of a host."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError:
        raise PolicyError("not a web address that can be read") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise PolicyError(f"only http and https addresses are fetched (this one is {scheme or 'without'} a scheme)"
                          if scheme not in ("http", "https") else "an address without a host")
    if parts.username or parts.password:
        raise PolicyError("an address with credentials in it is refused; no credential is sent")
    return scheme, parts.hostname, port


def addresses(host: str, port: int, allow_private: bool, ends: float, seconds: float) -> list[tuple[Any, Any]]:
    """The host's addresses as (family, socket address), asked of the resolver once, within the deadline;
    unless `allow_private`, PolicyError where any of them is on this machine or a private network (all are
    checked: a connection may go to any)."""
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures import TimeoutError as Late

    pool = ThreadPoolExecutor(1)  # the system's resolver takes no timeout: a timer around it
    try:
        found = pool.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM,
                            proto=socket.IPPROTO_TCP).result(timeout=max(ends - time.monotonic(), 0.001))
    except Late:
        raise DeadlinePassed(seconds) from None
    except (OSError, UnicodeError) as exc:
        raise Unreachable(f"the host cannot be found ({getattr(exc, 'strerror', None) or exc})") from None
    finally:
        pool.shutdown(wait=False)
    if not found:
        raise Unreachable("the host has no address")
    for *_, sockaddr in found if not allow_private else []:
        address = str(sockaddr[0])
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
            ip = ip.ipv4_mapped
        if not ip.is_global or ip.is_multicast:
            raise PolicyError(f"{host} is an address on this machine or a private network ({address}); such "
                              "pages are fetched only with --allow-private")
    return [(family, sockaddr) for family, _, _, _, sockaddr in found]


def _wait(sock: socket.socket, ends: float, seconds: float, write: bool = False) -> None:
    left = ends - time.monotonic()
    if left <= 0:
        raise DeadlinePassed(seconds)
    with selectors.DefaultSelector() as selector:
        selector.register(sock, selectors.EVENT_WRITE if write else selectors.EVENT_READ)
        if not selector.select(left):
            raise DeadlinePassed(seconds)


def _open(family: Any, sockaddr: Any, ends: float, seconds: float) -> socket.socket:
    """A connection to exactly `sockaddr`, made within the deadline."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setblocking(False)
        if (code := sock.connect_ex(sockaddr)) not in (0, errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EAGAIN):
            raise OSError(code, errno.errorcode.get(code, str(code)))
        _wait(sock, ends, seconds, write=True)
        if code := sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
            raise OSError(code, errno.errorcode.get(code, str(code)))
        return sock
    except BaseException:
        sock.close()
        raise


def _connect(host: str, port: int, tls_on: bool, allow_private: bool, ends: float, seconds: float) -> socket.socket:
    failed: OSError | None = None
    for family, sockaddr in addresses(host, port, allow_private, ends, seconds):
        try:
            sock = _open(family, sockaddr, ends, seconds)
            break
        except OSError as exc:
            failed = exc
    else:
        raise Unreachable(f"cannot connect ({type(failed).__name__}: {failed})")
    if not tls_on:
        return sock
    try:
        secure: ssl.SSLSocket = tls().wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
        _call(secure, secure.do_handshake, ends, seconds)
        return secure
    except BaseException as exc:
        sock.close()
        if isinstance(exc, ssl.SSLError):
            raise Unreachable(f"no trusted TLS connection ({exc.reason or exc})") from None
        raise


def _call(sock: socket.socket, step: Any, ends: float, seconds: float, *args: Any) -> Any:
    """`step(*args)` on the non-blocking socket, waiting within the deadline while it would block."""
    while True:
        if time.monotonic() >= ends:  # a server that is always ready with one more byte meets it here
            raise DeadlinePassed(seconds)
        try:
            return step(*args)
        except (BlockingIOError, ssl.SSLWantReadError):
            _wait(sock, ends, seconds)
        except ssl.SSLWantWriteError:
            _wait(sock, ends, seconds, write=True)


class Exchange:
    """One request and its reply, used as `with Exchange(...) as reply`: `status` and `headers` (lower-case
    names, repeated ones joined) once entered, the body from `read()` under `limit`."""

    def __init__(self, method: str, url: str, *, ends: float, seconds: float, limit: int,
                 allow_private: bool = False, headers: dict[str, str] | None = None, body: bytes = b"",
                 what: str = "the reply"):
        self.method, self.url, self.ends, self.seconds, self.limit = method, url, ends, seconds, limit
        self.allow_private, self.extra, self.body, self.what = allow_private, headers or {}, body, what
        self.sock: socket.socket | None = None
        self.http = h11.Connection(our_role=h11.CLIENT, max_incomplete_event_size=HEAD_BYTES)
        self.status = 0
        self.headers: dict[str, str] = {}

    def __enter__(self) -> Exchange:
        scheme, host, port = origin(self.url)
        try:
            name = host.encode("idna").decode("ascii") if not host.isascii() else host
        except UnicodeError:
            raise PolicyError("a host name that cannot be spelt in ASCII") from None
        shown = f"[{name}]" if ":" in name else name
        fields = [("Host", shown if port == (443 if scheme == "https" else 80) else f"{shown}:{port}"),
                  ("Accept", "*/*"), ("Accept-Encoding", ENCODINGS), ("Connection", "close"),
                  *self.extra.items(), *([("Content-Length", str(len(self.body)))] if self.body else [])]
        try:
            wire = self.http.send(h11.Request(method=self.method, target=request_target(self.url), headers=fields))
            wire = (wire or b"") + (self.http.send(h11.Data(data=self.body)) or b"") \
                + (self.http.send(h11.EndOfMessage()) or b"")
        except h11.LocalProtocolError:  # its words may quote a header, and a header may hold a key
            raise PolicyError("the request holds characters HTTP forbids") from None
        self.sock = _connect(name, port, scheme == "https", self.allow_private, self.ends, self.seconds)
        try:
            view = memoryview(wire)
            while view:
                view = view[_call(self.sock, self.sock.send, self.ends, self.seconds, view):]
            while isinstance(head := self._next(), h11.InformationalResponse):
                pass
        except BaseException:
            self.close()
            raise
        self.status = head.status_code
        for key, value in head.headers:
            name_of = key.decode("latin-1").lower()
            value_of = value.decode("latin-1")
            self.headers[name_of] = f"{self.headers[name_of]}, {value_of}" if name_of in self.headers else value_of
        return self

    def _next(self) -> Any:
        assert self.sock is not None, "entered first"
        try:
            while (event := self.http.next_event()) is h11.NEED_DATA:
                self.http.receive_data(_call(self.sock, self.sock.recv, self.ends, self.seconds, READ_SIZE))
        except h11.RemoteProtocolError as exc:
            raise Unreachable(f"the server's reply is not HTTP/1.1 that can be read ({exc})") from None
        except OSError as exc:
            raise Unreachable(f"the connection broke ({type(exc).__name__}: {exc})") from None
        if isinstance(event, h11.ConnectionClosed):
            raise Unreachable("the server closed the connection before its reply was whole")
        return event

    def read(self) -> bytes:
        """The body, unpacked; OversizedReply past `limit` on the wire or unpacked, DeadlinePassed past the
        deadline."""
        declared = self.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.limit:
            raise OversizedReply(self.limit, self.what)
        unpacker = Unpacker(self.headers.get("content-encoding", ""), self.limit, self.what)
        chunks = []
        while not isinstance(event := self._next(), h11.EndOfMessage):
            if isinstance(event, h11.Data):
                chunks.append(unpacker.feed(bytes(event.data)))
        return b"".join(chunks)

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def __exit__(self, *exc: Any) -> None:
        self.close()
