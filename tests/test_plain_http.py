"""The light client's own HTTP/1.1 connections to plain `http` servers: which addresses take them, that a
connection is reused only when it is sound, and that a hostile server meets the same policy as under httpx."""

from __future__ import annotations

import asyncio
import time

import pytest

from discuss.providers.plain_http import ConnectionFailed, PlainClient, takes
from discuss.providers.policy import DeadlinePassed

REPLY = b'{"ok": true}'


@pytest.mark.parametrize("url,env,plain", [
    ("http://127.0.0.1:8080/v1", {}, True),
    ("http://models.internal/v1", {}, True),
    ("https://api.openai.com/v1", {}, False),  # TLS goes through httpx
    ("http://user:secret@127.0.0.1:8080/v1", {}, False),  # httpx turns the address's password into a header
    ("http://models.internal/v1", {"http_proxy": "http://proxy:3128"}, False),  # httpx speaks to proxies
    ("http://models.internal/v1", {"ALL_PROXY": "http://proxy:3128"}, False),
    ("http://127.0.0.1:8080/v1", {"http_proxy": "http://proxy:3128", "no_proxy": "127.0.0.1"}, True),
    ("http://127.0.0.1:8080/v1", {"DISCUSS_CLIENT": "httpx"}, False),
    ("http://models.internal/v1", {"HTTP_PROXY": "http://proxy:3128"}, False),
    ("http://models.internal/v1", {"HTTP_PROXY": "http://proxy:3128", "REQUEST_METHOD": "GET"}, True),  # CGI
    ("http://models.internal/v1", {"HTTP_PROXY": "http://proxy:3128", "http_proxy": ""}, True),
    ("http://models.internal/v1", {"http_proxy": "http://proxy:3128", "NO_PROXY": "*"}, True),
    ("http://models.internal/v1", {"http_proxy": "http://proxy:3128", "no_proxy": "x, internal"}, True),
    ("http://models.internal/v1", {"http_proxy": "http://proxy:3128", "no_proxy": ".internal"}, True),
    ("http://models.internal/v1", {"http_proxy": "http://proxy:3128", "no_proxy": ".models.internal"}, False),
    ("http://models.internal/v1", {"http_proxy": "http://proxy:3128", "no_proxy": "nternal"}, False),
])
def test_which_addresses_take_the_plain_connection(monkeypatch, url, env, plain):
    import urllib.request
    from urllib.parse import urlsplit

    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY", "DISCUSS_CLIENT",
                 "REQUEST_METHOD"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert takes(url) is plain
    proxies = urllib.request.getproxies_environment()
    if plain and (proxies.get("http") or proxies.get("all")):  # no call goes direct that urllib would proxy
        assert urllib.request.proxy_bypass_environment(urlsplit(url).hostname, proxies)


class Server:
    """A scripted HTTP/1.1 server on 127.0.0.1: `reply(n)` gives the bytes to send for the n-th request,
    `close_after` closes each connection once it has answered; connections are counted."""

    def __init__(self, reply=None, close_after=False):
        self.reply = reply or (lambda n: b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(REPLY), REPLY))
        self.close_after, self.connections, self.requests, self.heads = close_after, 0, 0, []

    async def handle(self, reader, writer):
        self.connections += 1
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                self.heads.append(head)
                length = int(next((line.split(b":")[1] for line in head.split(b"\r\n")
                                   if line.lower().startswith(b"content-length")), b"0"))
                await reader.readexactly(length)
                self.requests += 1
                answer = self.reply(self.requests)
                for part in answer if isinstance(answer, list) else [answer]:
                    if isinstance(part, float):
                        await asyncio.sleep(part)
                    else:
                        writer.write(part)
                        await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    async def __aenter__(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"
        return self

    async def __aexit__(self, *exc):
        self.server.close()


async def ask(client, url, headers=None, timeout=5.0, read=True):
    async with client.stream("POST", url + "/chat/completions", json={"q": 1}, headers=headers or {},
                             timeout=timeout) as reply:
        return reply.status_code, (b"".join([c async for c in reply.aiter_bytes()]) if read else None)


def test_a_sound_connection_is_reused_and_one_the_server_closed_is_not():
    async def main():
        async with Server() as kept, Server(close_after=True) as closing:
            for server in (kept, closing):
                client = PlainClient(server.url, keepalive=60)
                for _ in range(3):
                    assert await ask(client, server.url) == (200, REPLY)
                    await asyncio.sleep(0.05)  # the server's end of a closed connection arrives
                await client.aclose()
            return kept.connections, closing.connections
    assert asyncio.run(main()) == (1, 3)


def test_a_connection_idle_past_the_keepalive_is_not_reused():
    async def main():
        async with Server() as server:
            client = PlainClient(server.url, keepalive=0.1)
            await ask(client, server.url)
            await asyncio.sleep(0.2)
            await ask(client, server.url)
            return server.connections
    assert asyncio.run(main()) == 2


def test_a_reply_left_unread_takes_its_connection_with_it():
    async def main():
        async with Server() as server:
            client = PlainClient(server.url, keepalive=60)
            await ask(client, server.url, read=False)
            assert client.idle == []
            assert await ask(client, server.url) == (200, REPLY)
            return server.connections
    assert asyncio.run(main()) == 2


def test_a_dripping_reply_is_stopped_at_the_requests_deadline():
    drip = [b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n", *[x for _ in range(100) for x in (b" ", 0.1)]]

    async def main():
        async with Server(reply=lambda n: drip) as server:
            began = time.monotonic()
            with pytest.raises(DeadlinePassed):
                await ask(PlainClient(server.url, keepalive=60), server.url, timeout=0.8)
            return time.monotonic() - began
    assert asyncio.run(main()) < 3  # the whole reply would take ten seconds


def test_a_key_holding_a_line_break_is_never_sent_nor_quoted():
    async def main():
        async with Server() as server:
            with pytest.raises(ConnectionFailed) as caught:
                await ask(PlainClient(server.url, keepalive=60), server.url,
                          headers={"Authorization": "Bearer sk-abc\r\nX-Injected: 1"})
            return server.heads, str(caught.value)
    heads, said = asyncio.run(main())
    assert heads == [] and "sk-abc" not in said and "forbids" in said


@pytest.mark.parametrize("reply", [
    b"not http at all\r\n\r\n",
    b"HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\nshort",  # closed before the promised body
])
def test_a_server_that_breaks_http_is_a_lost_connection(reply):
    async def main():
        async with Server(reply=lambda n: reply, close_after=True) as server:
            await ask(PlainClient(server.url, keepalive=60), server.url)
    with pytest.raises(ConnectionFailed):
        asyncio.run(main())


def test_a_chunked_reply_is_read_whole():
    chunked = (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
               b"5\r\n{\"ok\"\r\n7\r\n: true}\r\n0\r\n\r\n")

    async def main():
        async with Server(reply=lambda n: chunked) as server:
            client = PlainClient(server.url, keepalive=60)
            first, second = await ask(client, server.url), await ask(client, server.url)
            return first, second, server.connections
    assert asyncio.run(main()) == ((200, REPLY), (200, REPLY), 1)
