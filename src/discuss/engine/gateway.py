"""Running calls: phases, retries, timeouts and per-provider limits, whoever the provider is.

A phase is a list of calls run concurrently; `run_phase` returns when the
last one has finished (the barrier). Each call has its own timeout and one
retry loop (providers' own retries are off) with exponential backoff for
transient failures and timeouts, honouring a provider's Retry-After. A call
whose reply must follow a format is re-asked with the validation error, up
to a limit. Failures are returned as results, never raised, so one
panelist cannot sink a phase. Error text is scrubbed of keys.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..calls import CallResult, CallSpec, without_break
from ..domain import CLI_PREFIX, Panelist, Usage
from ..providers import Provider, TransientError, Waiting, route
from ..store.files import take_slot
from ..text.clean import clean, without_thinking
from ..text.jsonreply import ReplyError
from ..text.placeholders import is_echo, prepare
from ..text.secrets import mask_url, scrub

SENDING = 0.02  # seconds a phase's requests take to go out, ten at once

REASK = (
    "Your reply could not be used: {error}. "
    "Answer again with the JSON object only, following the format asked for."
)


def reask(error: Exception, spec: CallSpec) -> str:
    """What a model is told after an unusable reply: the exact error, and the schema where there is one."""
    text = REASK.format(error=error)
    if spec.schema is not None:
        import json

        text += "\nThe JSON schema it must follow:\n" + json.dumps(spec.schema, separators=(",", ":"))
    return text


class _Retriable(Exception):
    def __init__(self, message: str, timed_out: bool = False, wait: float | None = None):
        super().__init__(message)
        self.timed_out = timed_out
        self.wait = wait


def _retriable(exc: Exception) -> _Retriable | None:
    if isinstance(exc, TimeoutError):  # asyncio's and the provider's alike
        return _Retriable("timed out", timed_out=True)
    if isinstance(exc, TransientError):
        return _Retriable(str(exc), wait=exc.wait)
    return None


LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


SLOT_POLL = 0.02  # seconds between looks for a slot another process holds


class _Gate:
    """At most `value` holders at once; a waiter of lower `priority` is let in first, then in order of arrival
    (asyncio's Semaphore serves arrival alone). Calls of one priority are served as a semaphore would."""

    def __init__(self, value: int):
        self.free = value
        self.waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self.arrivals = itertools.count()

    async def acquire(self, priority: int) -> None:
        if self.free > 0 and not self.waiting:
            self.free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self.waiting, (priority, next(self.arrivals), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # let in, then cancelled: the place passes on
                self.release()
            raise

    def release(self) -> None:
        while self.waiting:
            turn = heapq.heappop(self.waiting)[2]
            if not turn.done():  # a cancelled waiter's turn is skipped
                turn.set_result(None)
                return
        self.free += 1


class ProviderLimits:
    """At most N requests at once per provider (the model string's prefix) and per server (`api_base`).

    A server on this machine that `limits:` does not name is asked how many
    it takes (llama.cpp's slots, vLLM's batching) before its first request;
    one that says nothing takes one at a time, since a local model server
    (ollama, llama-cpp-python) often has one slot and a second request either
    waits inside it (spending its timeout) or cuts the stream in progress;
    `on_note` is told so, with how to widen it. A coding agent's tool is
    limited by its own name (`cli/claude`), one call at a time unless
    `limits:` names it. A call waits for its slots before its timeout starts.
    """

    def __init__(self, limits: dict[str, int] | None = None, local: int | None = 1,
                 on_note: Callable[[str], None] | None = None):
        self.limits = dict(limits or {})
        self.local = local  # the limit of a server on this machine that `limits` does not name
        self.on_note = on_note or (lambda note: None)
        self._gates: dict[str, _Gate] = {}
        self._asked: dict[str, asyncio.Lock] = {}
        self.widths: dict[str, int] = {}  # what each local server said it takes

    @staticmethod
    def provider(p: Panelist) -> str:
        """The model string's prefix; a coding agent's tool by its own name (`cli/claude`), each a process here."""
        return p.model if p.model.startswith(CLI_PREFIX) else p.model.split("/", 1)[0]

    def named(self, key: str) -> bool:
        return key in self.limits or key.rstrip("/") in self.limits

    def on_this_machine(self, key: str) -> bool:
        from urllib.parse import urlsplit

        return "://" in key and (urlsplit(key).hostname or "").lower() in LOCAL_HOSTS

    def limit_of(self, key: str) -> int | None:
        if self.named(key):
            return self.limits.get(key, self.limits.get(key.rstrip("/")))
        if (self.on_this_machine(key) or key.startswith(CLI_PREFIX)) and self.local is not None:
            return self.widths.get(key, self.local)
        return None

    async def _ask_width(self, key: str) -> None:
        """Once per local server `limits:` does not name: ask it how wide it is, and say so if narrow."""
        if self.named(key) or not self.on_this_machine(key) or self.local is None:
            return
        async with self._asked.setdefault(key, asyncio.Lock()):
            if key in self.widths:
                return
            from ..providers.width import server_width

            said = await server_width(key)
            self.widths[key] = said or self.local
            if said is None and self.local == 1:
                self.on_note(f"{mask_url(key)} takes one request at a time (it does not say it takes more): to send "
                             f"more at once, give it more slots (llama.cpp: --parallel N) and name it under "
                             f"`limits:` in panels.yaml ('{mask_url(key)}': N)")

    async def _gate(self, key: str) -> _Gate | None:
        await self._ask_width(key)
        limit = self.limit_of(key)
        if limit is None:
            return None
        if key not in self._gates:
            self._gates[key] = _Gate(limit)
        return self._gates[key]

    @contextlib.asynccontextmanager
    async def gate(self, p: Panelist, priority: int = 0) -> AsyncIterator[None]:
        """Held while `p`'s request is out; where calls wait, those of lower `priority` go first."""
        keys = [p.api_base.rstrip("/")] if p.api_base else []
        gates = [(k, g) for k in [*keys, self.provider(p)] if (g := await self._gate(k)) is not None]
        async with contextlib.AsyncExitStack() as stack:
            for key, g in gates:
                await g.acquire(priority)
                stack.callback(g.release)
                await stack.enter_async_context(self._slot(key))
            yield

    @contextlib.asynccontextmanager
    async def _slot(self, key: str) -> AsyncIterator[None]:
        """One of the key's slots among every process on this machine (the semaphore keeps this process's
        own calls from polling for them)."""
        limit = self.limit_of(key) or 1
        while (give_back := take_slot(key, limit)) is None:
            await asyncio.sleep(SLOT_POLL)
        try:
            yield
        finally:
            give_back()


class Gateway:
    def __init__(
        self,
        timeout: float = 120.0,
        attempts: int = 3,
        base_delay: float = 1.0,
        asks: int = 3,
        on_event: Callable[[str, CallSpec, CallResult | None], None] | None = None,
        limits: ProviderLimits | None = None,
        providers: Callable[[Panelist], Provider] = route,
        retry_timeouts: bool = False,
        max_chars: int | None = None,
        on_tokens: Callable[[CallSpec, int], None] | None = None,
        priority: int = 0,
    ):
        self.retry_timeouts = retry_timeouts
        self.max_chars = max_chars
        self.route = providers
        self.limits = limits  # None: a bare gateway holds no limit; a command's client gives its own
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.base_delay = base_delay
        self.asks = max(1, asks)
        self.on_event = on_event or (lambda *a: None)
        self.on_tokens = on_tokens  # set: replies are streamed where the provider can, and reported
        self.priority = priority  # where calls wait for a provider's limit, lower goes first

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        """What a call would cost at the provider's prices; None where it knows none."""
        return self.route(p).price(p, prompt_tokens, completion_tokens)

    async def run_phase(
        self, specs: list[CallSpec], on_result: Callable[[CallResult], None] | None = None
    ) -> list[CallResult]:
        """Run every call at once; `on_result` sees each as it finishes."""
        members: dict[int, tuple[Any, list[Panelist]]] = {}
        for s in specs:
            provider = self.route(s.panelist)
            members.setdefault(id(provider), (provider, []))[1].append(s.panelist)
        for provider, panelists in members.values():
            provider.warm_up(panelists)

        async def one(spec: CallSpec) -> CallResult:
            result = await self.call(spec)
            if on_result:
                on_result(result)
            return result

        # What the replies' checks need is made while the requests are out, not when the first reply is in.
        early = asyncio.get_running_loop().call_later(SENDING, prepare)
        try:
            return list(await asyncio.gather(*(one(s) for s in specs)))
        finally:
            early.cancel()

    async def call(self, spec: CallSpec) -> CallResult:
        result = CallResult(spec=spec)
        messages = without_break(spec.messages)
        self.on_event("start", spec, None)
        started = time.monotonic()
        try:
            for ask in range(1, self.asks + 1):
                result.asks = ask
                raw, usage, result.finish_reason = await self._with_retries(spec, messages, result)
                text = self._capped(clean(scrub(without_thinking(raw), spec.panelist)), result)
                result.usage.add(usage)
                result.text = text
                if spec.validate is None:
                    if not text.strip():
                        raise ValueError("the reply was empty")
                    if is_echo(text):
                        raise ValueError(f"the reply only repeats the prompt's example ({text.strip()[:60]!r})")
                    break
                try:
                    result.value = spec.validate(text)
                    break
                except ReplyError as exc:
                    result.error = str(exc)
                    messages += [{"role": "assistant", "content": text},
                                 {"role": "user", "content": reask(exc, spec)}]
                    self.on_event("invalid", spec, result)
            else:
                result.invalid = True
            if not result.invalid:
                result.error = None
        except Waiting as exc:
            result.waiting = str(exc)  # not a failure: the run stops after this phase and asks again later
        except _Retriable as exc:
            result.error, result.timed_out = str(exc), exc.timed_out
        except Exception as exc:  # a provider's error is a result, not a crash
            result.error = f"{type(exc).__name__}: {exc}"
        result.elapsed_ms = int((time.monotonic() - started) * 1000)
        result.latency_ms = 0 if self.route(spec.panelist).simulated else result.elapsed_ms
        if result.error:
            result.error = clean(scrub(result.error, spec.panelist))[:500]
        self.on_event("waiting" if result.waiting else "done" if result.ok else "failed", spec, result)
        return result

    async def _with_retries(self, spec: CallSpec, messages: list[dict[str, Any]],
                            result: CallResult) -> tuple[str, Usage, str | None]:
        for attempt in range(1, self.attempts + 1):
            result.attempts += 1
            try:
                # the slot is held for the request, not the backoff; a timer, not a task of its own per call
                gate = contextlib.nullcontext() if self.limits is None else self.limits.gate(spec.panelist,
                                                                                              self.priority)
                async with gate, asyncio.timeout(self.timeout):
                    return await self._complete(spec, messages)
            except Exception as exc:
                if isinstance(exc, TransientError) and exc.usage is not None:
                    result.usage.add(exc.usage)  # a failed attempt that cost something is counted
                err = _retriable(exc)
                if err is None:
                    result.lasting = True  # the provider's own refusal (a key, a model's name): no retry helps
                    raise
                if attempt == self.attempts or (err.timed_out and not self.retry_timeouts):
                    raise err from None
                delay = err.wait if err.wait is not None else self.base_delay * 2 ** (attempt - 1)
                self.on_event("retry", spec, result)
                await asyncio.sleep(delay * (1 + random.random() * 0.1))
        raise AssertionError("unreachable")

    def _capped(self, text: str, result: CallResult) -> str:
        """No reply longer than the cap reaches a file or another panelist's prompt."""
        if self.max_chars is None or len(text) <= self.max_chars:
            return text
        result.cut_from = len(text)
        return text[: self.max_chars] + f"\n\n[cut: {len(text)} characters, at most {self.max_chars} kept]\n"

    async def _complete(self, spec: CallSpec, messages: list[dict[str, str]]) -> tuple[str, Usage, str | None]:
        report = self.on_tokens
        stream = None if report is None else (lambda pieces: report(spec, pieces))
        done = await self.route(spec.panelist).complete(spec, messages, self.timeout, stream)
        return done.text, done.usage, done.finish_reason
