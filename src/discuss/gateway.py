"""Calls to language models: the only module that imports litellm, and lazily.

A phase is a list of calls run concurrently; `run_phase` returns when the
last one has finished (the barrier). Each call has its own timeout and one
retry loop of ours (the SDK's retries are off) with exponential backoff for
rate limits, server errors and timeouts. A call whose reply must follow a
format is re-asked with the validation error, up to a limit. Failures are
returned as results, never raised, so one panelist cannot sink a phase.
Keys come from the environment only and are scrubbed from error text.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from . import offline
from .domain import Panelist, Usage
from .errors import InputError
from .jsonreply import ReplyError

REASK = (
    "Your reply could not be used: {error}. "
    "Answer again with the JSON object only, following the format asked for."
)


@dataclass
class CallSpec:
    key: str
    panelist: Panelist
    messages: list[dict]
    task: str
    max_tokens: int = 2000
    # Raises ReplyError for a reply to re-ask about; returns the parsed value.
    validate: Callable[[str], Any] | None = None
    # What the offline panel needs to play its part without reading prompts.
    context: dict = field(default_factory=dict)


@dataclass
class CallResult:
    spec: CallSpec
    text: str | None = None
    value: Any = None
    error: str | None = None
    invalid: bool = False
    timed_out: bool = False
    attempts: int = 0
    asks: int = 0
    usage: Usage = field(default_factory=Usage)
    latency_ms: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None


class _Retriable(Exception):
    def __init__(self, message: str, timed_out: bool = False, wait: float | None = None):
        super().__init__(message)
        self.timed_out = timed_out
        self.wait = wait


def _litellm():
    # Without these, importing litellm fetches a price table from the network
    # and prints provider banners on stdout.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def missing_keys(panelists: list[Panelist]) -> list[str]:
    """'VAR (for id)' for every key a panelist needs and the environment lacks."""
    missing = []
    need_check = []
    for p in panelists:
        if p.simulated:
            continue
        if p.api_key_env:
            if not os.environ.get(p.api_key_env):
                missing.append(f"{p.api_key_env} (for {p.id})")
        elif not p.api_base:
            need_check.append(p)
    if need_check:
        litellm = _litellm()
        for p in need_check:
            try:
                report = litellm.validate_environment(model=p.model)
            except Exception:  # unknown provider: let the call report it
                continue
            for var in report.get("missing_keys") or []:
                missing.append(f"{var} (for {p.id})")
    return missing


def check_keys(panelists: list[Panelist]) -> None:
    missing = missing_keys(panelists)
    if missing:
        raise InputError("missing API key: set " + ", ".join(missing) + " in the environment")


def _secrets(p: Panelist) -> list[str]:
    names = [p.api_key_env] if p.api_key_env else []
    names += [n for n in os.environ if n.endswith(("_API_KEY", "_TOKEN", "_SECRET"))]
    return [os.environ[n] for n in names if n and len(os.environ.get(n, "")) >= 6]


def scrub(text: str, p: Panelist) -> str:
    for secret in _secrets(p):
        text = text.replace(secret, "[redacted]")
    return text


def _retry_after(exc: Exception) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    try:
        return min(float(headers.get("retry-after")), 60.0)
    except (TypeError, ValueError):
        return None


def _classify(exc: Exception) -> Exception:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) or name in ("Timeout", "APITimeoutError"):
        return _Retriable("timed out", timed_out=True)
    if status in (408, 409, 429) or (isinstance(status, int) and status >= 500) or name in (
        "RateLimitError", "InternalServerError", "ServiceUnavailableError", "APIConnectionError",
    ):
        return _Retriable(f"{name} ({status})" if status else name, wait=_retry_after(exc))
    return exc


class ProviderLimits:
    """At most N requests at once per provider (the model string's prefix), shared by gateways."""

    def __init__(self, limits: dict[str, int] | None = None):
        self.limits = dict(limits or {})
        self._gates: dict[str, asyncio.Semaphore] = {}

    @staticmethod
    def provider(p: Panelist) -> str:
        return p.model.split("/", 1)[0]

    def gate(self, p: Panelist):
        name = self.provider(p)
        if name not in self.limits:
            return contextlib.nullcontext()
        if name not in self._gates:
            self._gates[name] = asyncio.Semaphore(self.limits[name])
        return self._gates[name]


class Gateway:
    def __init__(
        self,
        timeout: float = 120.0,
        attempts: int = 3,
        base_delay: float = 1.0,
        asks: int = 3,
        on_event: Callable[[str, CallSpec, CallResult | None], None] | None = None,
        limits: ProviderLimits | None = None,
    ):
        self.limits = limits or ProviderLimits()
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.base_delay = base_delay
        self.asks = max(1, asks)
        self.on_event = on_event or (lambda *a: None)

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        """What a call would cost at litellm's prices; None where it knows none."""
        if p.simulated:
            return 0.0
        try:
            return float(sum(_litellm().cost_per_token(
                model=p.model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)))
        except Exception:  # no price for this model
            return None

    async def run_phase(
        self, specs: list[CallSpec], on_result: Callable[[CallResult], None] | None = None
    ) -> list[CallResult]:
        """Run every call at once; `on_result` sees each as it finishes."""

        async def one(spec: CallSpec) -> CallResult:
            result = await self.call(spec)
            if on_result:
                on_result(result)
            return result

        return list(await asyncio.gather(*(one(s) for s in specs)))

    async def call(self, spec: CallSpec) -> CallResult:
        result = CallResult(spec=spec)
        messages = list(spec.messages)
        self.on_event("start", spec, None)
        started = time.monotonic()
        try:
            for ask in range(1, self.asks + 1):
                result.asks = ask
                text, usage = await self._with_retries(spec, messages, result)
                result.usage.add(usage)
                result.text = text
                if spec.validate is None:
                    if not text.strip():
                        raise ValueError("the reply was empty")
                    break
                try:
                    result.value = spec.validate(text)
                    break
                except ReplyError as exc:
                    result.error = str(exc)
                    messages += [{"role": "assistant", "content": text},
                                 {"role": "user", "content": REASK.format(error=exc)}]
                    self.on_event("invalid", spec, result)
            else:
                result.invalid = True
            if not result.invalid:
                result.error = None
        except _Retriable as exc:
            result.error, result.timed_out = str(exc), exc.timed_out
        except Exception as exc:  # a provider's error is a result, not a crash
            result.error = f"{type(exc).__name__}: {exc}"
        result.latency_ms = 0 if spec.panelist.simulated else int((time.monotonic() - started) * 1000)
        if result.error:
            result.error = scrub(result.error, spec.panelist)[:500]
        self.on_event("done" if result.ok else "failed", spec, result)
        return result

    async def _with_retries(self, spec: CallSpec, messages: list[dict], result: CallResult):
        for attempt in range(1, self.attempts + 1):
            result.attempts += 1
            try:
                async with self.limits.gate(spec.panelist):  # held for the request, not the backoff
                    return await asyncio.wait_for(self._complete(spec, messages), self.timeout)
            except Exception as exc:
                err = _classify(exc)
                if not isinstance(err, _Retriable) or attempt == self.attempts:
                    raise err from None
                delay = err.wait if err.wait is not None else self.base_delay * 2 ** (attempt - 1)
                self.on_event("retry", spec, result)
                await asyncio.sleep(delay * (1 + random.random() * 0.1))
        raise AssertionError("unreachable")

    async def _complete(self, spec: CallSpec, messages: list[dict]) -> tuple[str, Usage]:
        p = spec.panelist
        if p.simulated:
            text = offline.reply(p, spec.task, spec.context)
            return text, Usage(prompt_tokens=sum(len(m["content"]) for m in messages) // 4,
                               completion_tokens=len(text) // 4, cost=0.0, calls=1)
        litellm = _litellm()
        kwargs: dict[str, Any] = {
            "model": p.model, "messages": messages, "timeout": self.timeout,
            "max_retries": 0, "max_tokens": spec.max_tokens,
        }
        if p.api_base:
            kwargs["api_base"] = p.api_base
        key = os.environ.get(p.api_key_env) if p.api_key_env else None
        if key:
            kwargs["api_key"] = key
        elif p.api_base:
            kwargs["api_key"] = "not-needed"  # local servers often take no key
        response = await litellm.acompletion(**kwargs)
        text = response.choices[0].message.content or ""
        u = getattr(response, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:  # litellm knows no price for this model
            cost = None
        return text, Usage(
            prompt_tokens=int(getattr(u, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(u, "completion_tokens", 0) or 0),
            cost=cost, calls=1,
        )
