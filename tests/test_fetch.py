"""The one fetch of pages and search replies: the address checked is the address connected to, every
redirect's Location read, each packed layer bounded as it streams, one deadline that a drip cannot
stretch, the charset a page declares honoured."""

from __future__ import annotations

import json
import socket
import threading
import time
import tracemalloc
import zlib

import pytest

from discuss.errors import InputError
from discuss.providers import fetch, pages
from scripted import scripted_panel

SECRET = "INTERNALSECRET"


class Raw:
    """A server on 127.0.0.1 whose replies are written by hand: `routes` maps a path to the bytes sent, or
    to a function given the socket; `heads` keeps each request's head as received."""

    def __init__(self) -> None:
        self.routes: dict[str, object] = {}
        self.heads: list[str] = []
        self.sock = socket.create_server(("127.0.0.1", 0), backlog=128)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            head = b""
            while b"\r\n\r\n" not in head and (got := conn.recv(65536)):
                head += got
            self.heads.append(head.decode("latin-1"))
            path = head.split(b" ", 2)[1].decode() if head.count(b" ") >= 2 else "/"
            route = self.routes.get(path.split("?")[0], b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            try:
                route(conn) if callable(route) else conn.sendall(route)
            except OSError:
                pass

    def page(self, path: str, body: bytes, kind: str = "text/html", *headers: str) -> None:
        extra = "".join(f"{h}\r\n" for h in headers)
        self.routes[path] = (f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n{extra}"
                             "\r\n").encode() + body

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def raw():
    server = Raw()
    yield server
    server.close()


def resolver(monkeypatch, *answers: str) -> list[str]:
    """getaddrinfo answering each name with `answers` in turn (the last one from then on); the names asked."""
    asked: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        asked.append(host)
        address = answers[min(len(asked), len(answers)) - 1]
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def connections(monkeypatch) -> list[str]:
    """Where the fetch connects, recorded; only this machine is reached (a test never leaves it)."""
    made: list[str] = []
    opened = fetch._open

    def only_here(family, sockaddr, ends, seconds):
        made.append(sockaddr[0])
        if sockaddr[0] != "127.0.0.1":
            raise ConnectionRefusedError(111, "not from a test")
        return opened(family, sockaddr, ends, seconds)

    monkeypatch.setattr(fetch, "_open", only_here)
    return made


def frozen(project):
    folder = project.root / "sources" / "swarm-power"
    return sorted(folder.glob("*.md")) if folder.is_dir() else []


def test_a_name_that_answers_a_public_address_and_then_this_machine_is_never_fetched(project, raw, monkeypatch):
    """DNS rebinding: the name is resolved once, and the connection goes to the address that was checked."""
    raw.page("/internal", f"<html><body><article><p>{SECRET} lives on this machine only.</p></article></body>"
                          "</html>".encode())
    asked = resolver(monkeypatch, "8.8.8.8", "127.0.0.1")
    made = connections(monkeypatch)
    result = project.cli("sources", "add", "swarm-power", f"http://rebind.example:{raw.port}/internal")
    assert result.exit_code == 2 and "cannot connect" in result.stderr, result.output
    assert asked == ["rebind.example"] and made == ["8.8.8.8"]
    assert frozen(project) == [] and SECRET not in project.question.read_text()


def test_the_mcp_tool_takes_the_same_checked_path(project, raw, monkeypatch):
    from test_mcp import call

    raw.page("/internal", f"<html><body><p>{SECRET}</p></body></html>".encode())
    resolver(monkeypatch, "8.8.8.8", "127.0.0.1")
    made = connections(monkeypatch)
    result = call(project.root, "sources_add", {"question": "swarm-power",
                                                "urls": [f"http://rebind.example:{raw.port}/internal"]})
    assert result.is_error and "cannot connect" in str(result.content), result
    assert made == ["8.8.8.8"] and frozen(project) == []


def test_every_address_a_name_answers_is_checked(monkeypatch):
    def getaddrinfo(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("8.8.8.8", port)),
                (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::ffff:127.0.0.1", port, 0, 0))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    with pytest.raises(InputError, match=r"private network \(::ffff:127.0.0.1\); .*--allow-private"):
        pages.fetch("http://two.example/page")


def test_the_name_is_kept_for_the_host_header_when_the_address_is_connected_to(project, raw, monkeypatch):
    raw.page("/page", b"<html><body><article><p>The intranet page about the swarm's bus.</p></article></body></html>")
    resolver(monkeypatch, "127.0.0.1")
    result = project.cli("sources", "add", "swarm-power", f"http://intranet.example:{raw.port}/page",
                         "--allow-private")
    assert result.exit_code == 0, result.output
    assert f"\r\nHost: intranet.example:{raw.port}\r\n" in raw.heads[0]
    assert "swarm's bus" in frozen(project)[0].read_text()


def test_each_hop_of_a_redirect_is_resolved_and_checked_where_it_connects(project, raw, monkeypatch):
    raw.routes["/hop"] = f"HTTP/1.1 302 Found\r\nLocation: http://inner.example:{raw.port}/internal\r\n" \
                         "Content-Length: 0\r\n\r\n".encode()
    raw.page("/internal", f"<html><body><p>{SECRET}</p></body></html>".encode())
    asked = []

    def getaddrinfo(host, port, *args, **kwargs):
        asked.append(host)
        address = "8.8.8.8" if host == "outer.example" else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    opened = fetch._open  # the public address stands in for a server out there: this machine answers for it
    monkeypatch.setattr(fetch, "_open", lambda family, sockaddr, ends, seconds: opened(
        family, ("127.0.0.1", sockaddr[1]), ends, seconds))
    with pytest.raises(InputError, match=r"inner.example is an address on this machine"):
        pages.fetch(f"http://outer.example:{raw.port}/hop")
    assert asked == ["outer.example", "inner.example"]


@pytest.mark.parametrize("location", ["data:text/html,<p>INTERNALSECRET</p>", "javascript:alert(1)",
                                      "mailto:someone@example.org", "http://[::1", "http://host:port/x", " "])
def test_a_redirect_that_is_no_http_address_is_refused_in_words(project, raw, location):
    raw.routes["/moved"] = f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode()
    before = project.snapshot()
    result = project.cli("sources", "add", "swarm-power", f"{raw.url}/moved", "--allow-private")
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit | None), result.output
    assert "redirect to" in result.stderr and "Traceback" not in result.output, result.output
    assert project.snapshot() == before


def packed_twice(size: int) -> bytes:
    """`size` zero bytes gzipped, and gzipped again: a few kilobytes."""
    inner = zlib.compressobj(9, zlib.DEFLATED, 31)
    once = b"".join(inner.compress(b"\0" * (1 << 20)) for _ in range(size >> 20)) + inner.flush()
    outer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return outer.compress(once) + outer.flush()


BOMB = packed_twice(400 << 20)  # 400 MB unpacked, twenty times a page's limit


def peak_of(call) -> tuple[int, BaseException | None]:
    tracemalloc.start()
    try:
        call()
        failed = None
    except BaseException as exc:  # noqa: BLE001 - what it raised is the caller's to judge
        failed = exc
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, failed


def test_a_page_packed_twice_is_refused_without_holding_more_than_its_limit(raw):
    assert len(BOMB) < 4096
    raw.page("/bomb", BOMB, "text/html", "Content-Encoding: gzip, gzip")
    peak, failed = peak_of(lambda: pages.fetch(f"{raw.url}/bomb", allow_private=True))
    assert isinstance(failed, InputError) and "larger than 20,971,520 bytes" in str(failed), failed
    assert peak < 2 * pages.MAX_PAGE_BYTES, f"{peak:,} bytes at the peak"


def test_a_search_reply_packed_twice_is_refused_without_holding_more_than_the_limit(project, raw):
    raw.page("/search", BOMB, "application/json", "Content-Encoding: gzip, gzip")
    project.write_panels(scripted_panel(name="offline") + f"search: {{url: '{raw.url}', kind: searxng}}\n")
    from discuss.commands.sourcing import search
    from discuss.store.layout import Layout

    peak, failed = peak_of(lambda: search(Layout(project.root), "swarm-power", "flywheel"))
    assert isinstance(failed, InputError) and "the search reply passed 20,971,520 bytes" in str(failed), failed
    assert peak < 2 * pages.MAX_PAGE_BYTES, f"{peak:,} bytes at the peak"


def test_a_model_reply_packed_twice_is_bounded_by_the_same_unpacker():
    from discuss.providers.policy import MAX_REPLY_BYTES, OversizedReply, Unpacker

    peak, failed = peak_of(lambda: Unpacker("gzip, gzip").feed(BOMB))
    assert isinstance(failed, OversizedReply) and peak < 2 * MAX_REPLY_BYTES, (failed, peak)
    assert Unpacker("deflate").feed(zlib.compress(b"an answer")) == b"an answer"
    twice = packed_twice(2 << 20)
    assert Unpacker("gzip, gzip").feed(twice) == b"\0" * (2 << 20)
    with pytest.raises(Exception, match="packed 3 times"):
        Unpacker("gzip, gzip, gzip")


def dripping(conn: socket.socket) -> None:
    """A status line, then headers one byte every 0.2 s, never ending."""
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    for byte in b"Content-Type: text/html\r\nX-Padding: " + b"a" * 1000:
        conn.sendall(bytes([byte]))
        time.sleep(0.2)


def test_headers_dripped_a_byte_at_a_time_meet_the_fetchs_deadline(raw):
    raw.routes["/drip"] = dripping
    started = time.monotonic()
    with pytest.raises(InputError, match=r"no whole reply within 1s"):
        pages.fetch(f"{raw.url}/drip", allow_private=True, deadline=1.0)
    assert time.monotonic() - started < 1.6


def test_doctor_gives_a_server_dripping_its_headers_its_deadline(project, raw):
    raw.routes["/v1/models"] = dripping
    project.write_panels(f"    p:\n      members:\n        - {{id: d, model: openai/d, api_base: '{raw.url}/v1'}}\n"
                         "      settings: {timeoutSeconds: 1}\n")
    started = time.monotonic()
    result = project.cli("doctor", "--panel", "p")
    assert "busy" in result.stdout, result.output
    assert time.monotonic() - started < 10  # headers a byte each 0.2 s would take 200 s


def test_a_resolver_that_never_answers_meets_the_fetchs_deadline(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: time.sleep(5))
    started = time.monotonic()
    with pytest.raises(InputError, match=r"no whole reply within 0.5s"):
        pages.fetch("http://slow-name.example/", deadline=0.5)
    assert time.monotonic() - started < 1.5


def test_a_search_endpoint_that_drips_meets_its_deadline(project, raw, monkeypatch):
    from discuss.commands import sourcing

    raw.routes["/search"] = dripping
    monkeypatch.setattr(sourcing, "SEARCH_DEADLINE", 1.0)
    project.write_panels(scripted_panel(name="offline") + f"search: {{url: '{raw.url}', kind: searxng}}\n")
    started = time.monotonic()
    result = project.cli("sources", "search", "swarm-power", "flywheel")
    assert result.exit_code == 2 and "no whole reply within 1s" in result.stderr, result.output
    assert time.monotonic() - started < 1.6 + 1.0  # the command's own start included


CAFE = "Le café coûte 3 € — naïve œuvre"


@pytest.mark.parametrize("body, kind", [
    (CAFE.replace("€", "EUR").replace("—", "-").replace("œ", "oe").encode("latin-1"), "text/plain; charset=ISO-8859-1"),
    (CAFE.encode("cp1252"), "text/plain; charset=windows-1252"),
    (CAFE.encode("cp1252"), "text/plain"),  # undeclared, not UTF-8: windows-1252
    (CAFE.encode("utf-8"), "text/plain"),  # undeclared UTF-8
    (b"\xff\xfe" + CAFE.encode("utf-16-le"), "text/plain"),
    (b"\xfe\xff" + CAFE.encode("utf-16-be"), "text/plain; charset=utf-8"),  # a byte-order mark outranks the header
    (CAFE.encode("utf-16-le"), "text/plain; charset=utf-16"),
    (f'<html><head><meta charset="windows-1252"></head><body><article><p>{CAFE}</p></article></body></html>'
     .encode("cp1252"), "text/html"),
    (f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-15"></head><body><article>'
     f"<p>{CAFE.replace('—', '-')}</p></article></body></html>".encode("iso-8859-15"), "text/html"),
])
def test_the_charset_a_page_declares_is_the_one_it_is_read_in(project, raw, body, kind):
    raw.page("/page", body, kind)
    result = project.cli("sources", "add", "swarm-power", f"{raw.url}/page", "--allow-private")
    assert result.exit_code == 0, result.output
    text = frozen(project)[0].read_text(encoding="utf-8")
    assert "caf\u00e9 co\u00fbte 3" in text and "na\u00efve" in text and "\x00" not in text, text
    assert "\u00c3" not in text and "\ufffd" not in text  # no mojibake, nothing lost


def test_a_frozen_file_that_links_out_of_the_project_is_refused_in_words(project, raw, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(f"---\nurl: x\nfetchedAt: y\n---\n{SECRET}\n")
    folder = project.root / "sources" / "swarm-power"
    folder.mkdir(parents=True)
    (folder / "linked.md").symlink_to(outside)
    raw.page("/page", b"<html><body><article><p>A page about the swarm's bus.</p></article></body></html>")
    result = project.cli("sources", "add", "swarm-power", f"{raw.url}/page", "--allow-private")
    assert result.exit_code == 2, result.output
    assert "a link out of the project" in result.stderr and "nothing was kept" in result.stderr
    assert isinstance(result.exception, SystemExit | None)
    assert SECRET not in result.output and sorted(p.name for p in folder.iterdir()) == ["linked.md"]


def test_search_results_are_read_under_the_same_fetch(project, raw):
    body = json.dumps({"results": [{"url": "https://example.org/a", "title": "A", "content": "first"}]}).encode()
    raw.page("/search", zlib.compress(body), "application/json", "Content-Encoding: deflate")
    project.write_panels(scripted_panel(name="offline") + f"search: {{url: '{raw.url}', kind: searxng}}\n")
    result = project.cli("sources", "search", "swarm-power", "flywheel storage", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"] == [{"title": "A", "url": "https://example.org/a",
                                                     "snippet": "first"}]
    assert "GET /search?q=flywheel+storage&format=json HTTP/1.1" in raw.heads[0]
