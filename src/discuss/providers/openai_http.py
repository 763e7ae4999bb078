"""OpenAI's chat API and the servers that speak it (ollama, llama.cpp, vLLM ...) over plain HTTP.

For these calls litellm only passes the request through, yet importing it
costs seconds and about 170 MB before the first request. They go out here
with httpx (tenths of a second, tens of MB): a model litellm does not know
at the member's own `api_base`, and OpenAI's own chat models by the names
people use (`openai/gpt-4o-mini`, `gpt-4o`), at OpenAI or at the member's
`api_base`. What the litellm provider promises holds the same way: the same
request body (options, `extra_body`, structured replies where litellm's
table says the model takes them), usage as the server counts it (counted
here where a stream sends none), cost at litellm's table rates (cached
prompt tokens at their own rate) or the member's own price, the same
transient and final errors in the same words, streaming with the same
checks of a stream's end. OpenAI's reasoning models (`o3`, `gpt-5`...),
whose parameters litellm rewrites, and every other provider still go
through litellm; `DISCUSS_CLIENT=litellm` sends every call there. A plain
`http` server is spoken to over plain_http.py's own connections, anything
else through httpx (`DISCUSS_CLIENT=httpx` sends every light call there).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..calls import CallSpec
from ..domain import Panelist, Usage
from ..text.secrets import mask_url
from . import litellm as via_litellm
from .base import Completion, Diagnosis, OnTokens, TransientError
from .openai_names import base_of, hosted, key_variable, model_name
from .policy import DeadlinePassed, endpoint_url
from .prices import entry, table_price
from .usage import sane_usage


class ServerError(Exception):
    """A final reply with an error status; its class is named as litellm names it (the gateway shows the name)."""

    def __init__(self, status: int, said: str):
        self.status_code = status
        super().__init__(f"the server answered {status}" + (f": {said}" if said else ""))


@cache
def error_class(status: int) -> type[ServerError]:
    return type(STATUS_NAMES.get(status, "APIError"), (ServerError,), {})


STATUS_NAMES = {400: "BadRequestError", 401: "AuthenticationError", 403: "PermissionDeniedError",
                404: "NotFoundError", 408: "Timeout", 409: "ConflictError", 413: "BadRequestError",
                422: "UnprocessableEntityError", 429: "RateLimitError", 500: "InternalServerError",
                502: "InternalServerError", 503: "ServiceUnavailableError", 504: "Timeout"}


def said_by(body: bytes) -> str:
    """The message in an error reply's body, in one line."""
    text = body.decode("utf-8", "replace")
    try:
        error = json.loads(text).get("error")
        text = str(error.get("message") if isinstance(error, dict) else error or text)
    except (ValueError, AttributeError):
        pass
    return " ".join(text.split())[:200]


def failure(status: int, body: bytes, headers: Any) -> Exception:
    """A non-200 reply as the litellm provider would report it: transient (with Retry-After) or final."""
    said = said_by(body)
    if status in (408, 409, 429) or status >= 500:
        name = STATUS_NAMES.get(status, "InternalServerError" if status >= 500 else "APIError")
        return TransientError(f"{name} ({status})" + (f": {said}" if said else ""),
                              wait=via_litellm.wait_asked(headers))
    return error_class(status)(status, said)


# Kept-alive connections, per event loop and member: a new connection per call costs a handshake (TLS for
# a remote server), and ten opened at once overflow a small server's listen queue (a second's wait to
# retry). A client per member, not one for all: httpcore hands a request a connection by checking every
# idle one of its pool, and ten members' requests went out in 15 ms from one pool, in 6 from their own.
# A connection idle this long is closed by us first: servers of models close theirs after 5 s (uvicorn,
# cpp-httplib), and a request sent as the server closes is lost with nothing said. The same scan makes one
# pool's cost grow with the square of the requests it carries (an eval's 64 at once to one member spent more
# CPU there than anywhere else), so a member's requests beyond LANE at once go through a second client.
KEEPALIVE_SECONDS = 2.0
LANE = 8


@dataclass
class _Lane:
    client: Any
    room: float = LANE
    busy: int = 0


POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, str], list[_Lane]]] = \
    weakref.WeakKeyDictionary()


@contextlib.asynccontextmanager
async def pool(p: Panelist) -> AsyncIterator[Any]:
    """An HTTP client of this event loop for `p` with room for one more request, made when none has: a plain
    `http` server's own connections where they serve (plain_http.py), else httpx's."""
    # The two HTTP clients load with the first request: plain_http brings h11, http brings httpx (about
    # 0.1 s), and a run on one never needs the other.
    from . import plain_http

    lanes = POOLS.setdefault(asyncio.get_running_loop(), {}).setdefault((base_of(p), p.id), [])
    lanes[:] = [lane for lane in lanes if not lane.client.is_closed]
    lane = next((lane for lane in lanes if lane.busy < lane.room), None)
    if lane is None:
        if plain_http.takes(base_of(p)):  # its idle connections are taken, never scanned: one lane serves
            lane = _Lane(plain_http.PlainClient(base_of(p), KEEPALIVE_SECONDS), room=float("inf"))
        else:
            from .http import async_client

            lane = _Lane(async_client(max_connections=None, max_keepalive_connections=64,
                                      keepalive_expiry=KEEPALIVE_SECONDS))
        lanes.append(lane)
    lane.busy += 1
    try:
        yield lane.client
    finally:
        lane.busy -= 1


async def close_pool() -> None:
    """Close this event loop's connections, if a call opened any."""
    for lanes in POOLS.pop(asyncio.get_running_loop(), {}).values():
        for lane in lanes:
            await lane.client.aclose()


def request_body(p: Panelist, spec: CallSpec, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """What litellm sends an OpenAI-compatible server for this call: options, `extra_body` merged in."""
    options, defaults = via_litellm.member_options(p, spec)
    extra = options.pop("extra_body", None) or {}
    body: dict[str, Any] = {"model": model_name(p), "messages": messages, **defaults, **options}
    if (form := via_litellm.response_format(TableSupport if hosted(p) else None, p, spec)) is not None:
        body["response_format"] = form
    return body | extra


class TableSupport:
    """What `response_format` asks litellm, answered from litellm's table for a model it lists."""

    @staticmethod
    def supports_response_schema(model: str) -> bool:
        return bool((entry(model) or {}).get("supports_response_schema"))


def headers_for(p: Panelist) -> dict[str, str]:
    key = os.environ.get(name) if (name := key_variable(p)) else None
    return {"Authorization": f"Bearer {key or 'not-needed'}", "Content-Type": "application/json"}


def reply_of(data: Any) -> tuple[str, Any, str | None]:
    """The text, usage and finish_reason of a chat completion's JSON; refusing what has no answer."""
    choices = data.get("choices") if isinstance(data, dict) else None
    if not choices or not isinstance(choices[0], dict):
        raise ValueError("the provider sent a reply with no choices")
    message = choices[0].get("message") or {}
    if not isinstance(message, dict):
        raise ValueError("the provider sent a reply whose message is not an object")
    text = message.get("content") or ""
    if not isinstance(text, str):
        text = "".join(str(b.get("text") or "") for b in text if isinstance(b, dict)) if isinstance(text, list) else ""
    if message.get("reasoning_content") or message.get("reasoning"):
        # Thinking the server set apart: never part of the answer.
        if not text.strip():
            raise TransientError("the model sent only its reasoning and no answer (raise its max_tokens?)",
                                 usage=Usage(calls=1))
        text = text.lstrip("\n")
    return text, data.get("usage"), choices[0].get("finish_reason")


def usage_of(p: Panelist, raw: Any, body: dict[str, Any], text: str) -> Usage:
    """The call's usage as the server counted it, through the one sanitiser every client uses."""
    raw = raw if isinstance(raw, dict) else {}
    details = raw.get("prompt_tokens_details")
    usage = sane_usage(raw.get("prompt_tokens"), raw.get("completion_tokens"),
                       details.get("cached_tokens") if isinstance(details, dict) else None,
                       body["messages"], text, body.get("max_tokens"))
    usage.cost = OPENAI_HTTP.price(p, usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens)
    return usage


def _network_failure(exc: Exception) -> str | None:
    """"timeout" or "lost" for a failure of the network under either client, None for anything else."""
    import sys

    from .plain_http import ConnectionFailed

    httpx = sys.modules.get("httpx")  # an httpx error can only come from an httpx already imported
    if isinstance(exc, DeadlinePassed) or (httpx is not None and isinstance(exc, httpx.TimeoutException)):
        return "timeout"
    if isinstance(exc, ConnectionFailed) or (httpx is not None and isinstance(exc, httpx.TransportError)):
        return "lost"
    return None


def event_of(line: str) -> dict[str, Any]:
    """One event of a stream, its choices checked down to their text; anything else is an unreadable reply."""
    try:
        chunk = json.loads(line[5:])
    except ValueError as exc:
        raise unreadable(str(exc)) from None
    choices = chunk.get("choices") if isinstance(chunk, dict) else "none"
    if not isinstance(choices, list | None) or not all(
            isinstance(c, dict) and isinstance(c.get("delta") or {}, dict)
            and isinstance((c.get("delta") or {}).get("content") or "", str)
            and isinstance(c.get("finish_reason") or "", str) for c in choices or []):
        raise unreadable(f"an event that is not a chat completion chunk: {line[5:80]!r}")
    return {**chunk, "choices": choices or []}


def unreadable(detail: str) -> TransientError:
    return TransientError(f"the provider's reply could not be read (not JSON, or not UTF-8): {detail[:200]}",
                          usage=Usage(calls=1))


def sent(client: Any, p: Panelist, body: dict[str, Any], timeout: float) -> Any:
    """The request posted to `p`'s server; the reply, read by the caller as it comes."""
    return client.stream("POST", endpoint_url(base_of(p)), json=body, headers=headers_for(p), timeout=timeout)


async def bounded(reply: Any) -> bytes:
    """The reply's body, unpacked (the transport refuses it past its size limit)."""
    return b"".join([chunk async for chunk in reply.aiter_bytes()])


async def lines(reply: Any) -> AsyncIterator[str]:
    """A stream's lines as they come (the transport refuses a stream past its size limit)."""
    rest = b""
    async for chunk in reply.aiter_bytes():
        *done, rest = (rest + chunk).split(b"\n")
        for line in done:
            yield line.rstrip(b"\r").decode("utf-8", "replace")
    if rest:
        yield rest.rstrip(b"\r").decode("utf-8", "replace")


class OpenAIHTTPProvider:
    simulated = False

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float,
                       on_tokens: OnTokens | None = None) -> Completion:
        p = spec.panelist
        where = mask_url(base_of(p))
        body = request_body(p, spec, messages)
        try:
            async with pool(p) as client:
                if on_tokens is None:
                    async with sent(client, p, body, timeout) as reply:
                        content = await bounded(reply)
                    text, raw_usage, finish = self._read(reply.status_code, content, reply.headers)
                    usage = usage_of(p, raw_usage, body, text)
                else:
                    text, usage, finish = await self._stream(client, p, body, timeout, where, on_tokens)
        except Exception as exc:
            if (kind := _network_failure(exc)) is None:
                raise
            if kind == "timeout":
                raise TimeoutError("timed out") from None
            fault = via_litellm.network_fault(exc, where)
            raise TransientError(fault or f"the connection to {where} was lost: {type(exc).__name__}: {exc}") from None
        return Completion(text, usage, None if finish in (None, "stop") else str(finish))

    @staticmethod
    def _read(status: int, content: bytes, headers: Any) -> tuple[str, Any, str | None]:
        if status != 200:
            raise failure(status, content, headers)
        try:
            data = json.loads(content.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise unreadable(str(exc)) from None
        return reply_of(data)

    @staticmethod
    async def _stream(client: Any, p: Panelist, body: dict[str, Any], timeout: float, where: str,
                      on_tokens: OnTokens) -> tuple[str, Usage, str]:
        """The reply streamed as server-sent events, with the checks the litellm provider makes of a stream's end."""
        body = body | {"stream": True, "stream_options": {"include_usage": True}}
        parts: list[str] = []
        finish, raw_usage, events = None, None, 0
        async with sent(client, p, body, timeout) as reply:
            if reply.status_code != 200:
                raise failure(reply.status_code, await bounded(reply), reply.headers)
            async for line in lines(reply):
                if not line.startswith("data:") or line[5:].strip() == "[DONE]":
                    continue
                chunk = event_of(line)
                events += 1
                raw_usage = chunk.get("usage") or raw_usage
                for choice in chunk["choices"]:
                    piece = (choice.get("delta") or {}).get("content")
                    if piece:
                        parts.append(piece)
                        on_tokens(len(parts))
                    finish = choice.get("finish_reason") or finish
        if not events:
            raise TransientError("the provider sent an empty stream", usage=Usage(calls=1))
        text = "".join(parts)
        usage = usage_of(p, raw_usage, body, text)
        if not finish or not text.strip():
            why = "ended before the reply was finished" if finish is None else "ended with no text"
            raise TransientError(f"the stream {why} ({len(parts)} pieces arrived); asked again",
                                 usage=Usage(prompt_tokens=usage.prompt_tokens,
                                             completion_tokens=usage.completion_tokens, calls=1))
        return text, usage, finish

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float | None:
        """The member's own price, else litellm's table rate (cached prompt tokens at theirs), else None."""
        if p.price is not None:
            return via_litellm.own_price(p, prompt_tokens, completion_tokens)

        return table_price(p.model, prompt_tokens, completion_tokens, cached_tokens)

    def missing_keys(self, panelists: list[Panelist]) -> list[str]:
        return [f"{name} (for {p.id})" for p in panelists
                if (name := key_variable(p)) and not os.environ.get(name)]

    def warm_up(self, panelists: list[Panelist]) -> None:
        from . import plain_http

        if not all(plain_http.takes(base_of(p)) for p in panelists):
            from . import http

            http.warm_up()

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        return via_litellm.LITELLM.diagnose(p, timeout)


OPENAI_HTTP = OpenAIHTTPProvider()
