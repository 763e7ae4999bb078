"""Real models through litellm: the only module that imports it, and only when a call needs it.

litellm's own retries are off (the gateway retries in one place); its
exceptions are sorted here into transient ones (rate limits, server errors,
lost connections, with the provider's Retry-After) and final ones.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from ..calls import CACHE_BREAK, CallSpec
from ..domain import Panelist, Usage
from ..text.naming import did_you_mean
from ..text.secrets import mask_url
from .base import Completion, Diagnosis, OnTokens, TransientError
from .policy import DeadlinePassed, PolicyError, endpoint_url, refusal
from .prices import entry, same_provider, table_price
from .usage import sane_cost, sane_usage

TRANSIENT_NAMES = ("RateLimitError", "InternalServerError", "ServiceUnavailableError", "APIConnectionError")
MAX_WAIT = 60.0


def load() -> Any:
    # Without these, importing litellm fetches a price table from the network
    # and prints provider banners on stdout.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import litellm

    litellm.suppress_debug_info = True
    if litellm.aclient_session is None:
        # Every provider litellm reaches through the OpenAI SDK takes this client: the one HTTP policy (no
        # redirect followed, a deadline, a size limit) instead of the SDK's, which follows redirects.
        from .http import async_client

        litellm.aclient_session = async_client()
    _policy_for_native_providers()
    return litellm


def _policy_for_native_providers() -> None:
    """Every provider litellm reaches with its own HTTP handler (Anthropic, Gemini, Bedrock...) under the
    same policy: each client that handler makes is ours, whatever that version of litellm would build."""
    try:
        from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler
    except ImportError:  # pragma: no cover - a litellm without the handler has nothing to guard
        return
    if getattr(AsyncHTTPHandler.create_client, "discuss_policy", False):
        return
    import httpx

    from .http import async_client

    def create_client(self: Any, timeout: Any = None, event_hooks: Any = None, *args: Any, **kwargs: Any) -> Any:
        client = async_client()
        client.timeout = httpx.Timeout(timeout if timeout is not None else 600.0)
        if event_hooks:
            client.event_hooks = dict(event_hooks)
        return client

    create_client.discuss_policy = True  # type: ignore[attr-defined]
    AsyncHTTPHandler.create_client = create_client  # type: ignore[method-assign]


def through_openai_sdk(litellm: Any, model: str) -> bool:
    prefix = model.split("/", 1)[0] if "/" in model else "openai"  # a bare name is OpenAI's
    return prefix in ("openai", "azure", "text-completion-openai") or prefix in litellm.openai_compatible_providers


def retry_after(exc: Exception) -> float | None:
    """Seconds the provider asked us to wait: litellm keeps its headers beside the response."""
    for headers in (getattr(exc, "litellm_response_headers", None),
                    getattr(getattr(exc, "response", None), "headers", None)):
        if (wait := wait_asked(headers)) is not None:
            return wait
    return None


def wait_asked(headers: Any) -> float | None:
    """A reply's Retry-After in seconds, within reason; None where it asks none."""
    try:
        value = headers.get("retry-after") if headers else None
        return None if value is None else min(max(float(value), 0.0), MAX_WAIT)
    except (AttributeError, TypeError, ValueError):
        return None


# What litellm says when a 200 reply's body is not the JSON it expects: HTML, bad UTF-8, a cut body.
# "Invalid response object": litellm's word for usage it cannot build (NaN, fractional counts).
UNREADABLE = ("Invalid response object", "Expecting value", "codec can't decode", "Unterminated string",
              "Expecting ',' delimiter", "Expecting property name", "Extra data", "Invalid control character", "JSONDecodeError")


def network_fault(exc: BaseException, where: str) -> str | None:
    """A refused connection, a name that does not resolve or a failed TLS handshake, in words.

    litellm reports each as "InternalServerError (500): Connection error."; the
    cause is further down the exception's chain.
    """
    import socket
    import ssl

    seen: BaseException | None = exc
    connecting = False
    for _ in range(12):
        if seen is None:
            return None
        connecting = connecting or type(seen).__name__ in ("APIConnectionError", "ConnectError")
        if isinstance(seen, ConnectionRefusedError):
            return f"connection refused by {where}: is the server running? (`discuss doctor` checks it)"
        if isinstance(seen, socket.gaierror):
            return f"the name in {where} does not resolve: no network, or a typo in the address"
        if isinstance(seen, ssl.SSLError):
            return f"the TLS handshake with {where} failed: {seen}"
        deeper = seen.__cause__ or seen.__context__
        if deeper is None and connecting:
            return f"could not connect to {where}: {type(seen).__name__}: {seen}"
        seen = deeper
    return None


def provider_message(exc: Exception) -> str:
    """What the provider said, where it said more than litellm's class name (llama-cpp-python's 500s do)."""
    text = str(getattr(exc, "message", "") or exc)
    said = text.rsplit(" - ", 1)[-1].strip() if " - " in text else ""
    return "" if said.lower().rstrip(".") in ("", "connection error", "internal server error") else " ".join(said.split())[:200]


def classify(exc: Exception, p: Panelist | None = None) -> Exception:
    """A timeout, a TransientError, or the exception itself (final)."""
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    refused = refusal(exc)
    if name in ("Timeout", "APITimeoutError") or isinstance(refused, DeadlinePassed):
        return TimeoutError("timed out")
    if refused is not None:
        return refused  # final: asking again would meet the same redirect or the same flood
    where = mask_url(p.api_base) if p is not None and p.api_base else \
        f"the {p.model.split('/', 1)[0]} API" if p is not None else "the provider"
    if (fault := network_fault(exc, where)) is not None:
        return TransientError(fault)
    if name == "MidStreamFallbackError":  # litellm's name for a stream cut before it said it was done
        return TransientError("the stream ended before the reply was finished; asked again", usage=Usage(calls=1))
    if any(sign in str(exc) for sign in UNREADABLE):
        detail = str(exc).rsplit(" - ", 1)[-1][:200]
        return TransientError(f"the provider's reply could not be read (not JSON, or not UTF-8): {detail}",
                              usage=Usage(calls=1))
    if status in (408, 409, 429) or (isinstance(status, int) and status >= 500) or name in TRANSIENT_NAMES:
        said = provider_message(exc)
        return TransientError((f"{name} ({status})" if status else name) + (f": {said}" if said else ""),
                              wait=retry_after(exc))
    return exc


# The key of the usual hosted providers, as litellm reads it (the first is the one to ask for); any
# other provider is asked of litellm itself, which costs its import (seconds).
KEY_VARIABLES = {
    "anthropic": ("ANTHROPIC_API_KEY",), "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "openrouter": ("OPENROUTER_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",), "groq": ("GROQ_API_KEY",), "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
}

# Variables litellm accepts in place of one another: a user needs to set the first.
ALTERNATIVES = {frozenset({"GOOGLE_API_KEY", "GEMINI_API_KEY"}): "GEMINI_API_KEY"}


def response_format(litellm: Any | None, p: Panelist, spec: CallSpec) -> dict[str, Any] | None:
    """The structured reply's schema as the member's provider takes it, or None to ask in words only.

    `json_schema` is OpenAI's form (ollama, vLLM and llama.cpp's own server
    take it); `json_object` carries the schema the way llama-cpp-python's
    server wants it; `auto` sends OpenAI's form where litellm says the model
    supports it (no `litellm` given: a model it does not know, so none); `text`
    never sends one. The reply is validated either way.
    """
    schema = spec.reply_schema()
    if schema is None or p.response_format == "text":
        return None
    if p.response_format == "json_object":
        return {"type": "json_object", "schema": schema}
    if p.response_format == "auto":
        if litellm is None:
            return None
        try:
            if not litellm.supports_response_schema(model=p.model):
                return None
        except Exception:  # unknown model: ask in words only
            return None
    return {"type": "json_schema", "json_schema": {"name": spec.task, "schema": schema}}


def member_options(p: Panelist, spec: CallSpec) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the member's options with the call's `max_tokens`, lowered to its own cap if it sets one; the
    defaults of its discussion, such as Dyson's temperature, that its options leave unset)."""
    cap = min(spec.max_tokens, int(p.options["max_tokens"])) if "max_tokens" in p.options else spec.max_tokens
    return {**p.options, "max_tokens": cap}, {k: v for k, v in p.defaults.items() if k not in p.options}


def one_of(names: list[str]) -> list[str]:
    """The variables to ask a user for: one of each set of alternatives, every other as litellm lists it."""
    chosen = ALTERNATIVES.get(frozenset(names))
    return [chosen] if chosen else names


# How litellm reports a stream broken once it began (by release); anything else, a timeout or a bug, is itself.
STREAM_BREAKS = ("MidStreamFallbackError", "APIConnectionError", "InternalServerError", "ServiceUnavailableError",
                 "APIError", "RemoteProtocolError", "ReadError")


async def streamed(litellm: Any, kwargs: dict[str, Any], on_tokens: OnTokens) -> tuple[Any, str]:
    """The reply streamed piece by piece, rebuilt into the response a plain call returns, and its finish_reason.

    The provider's own usage comes in the last chunk where it sends one;
    otherwise the tokens are counted here, so a budget never sees a free call.
    A stream that ends without saying why it finished (a dropped
    connection, a server that interrupted it for another request) or with
    no text is a failed attempt, retried, with what it cost counted.
    """
    chunks, pieces, finish = [], 0, None
    stream = await litellm.acompletion(**kwargs, stream=True, stream_options={"include_usage": True})
    try:
        async for chunk in stream:
            chunks.append(chunk)
            if chunk.choices and getattr(chunk.choices[0].delta, "content", None):
                pieces += 1
                on_tokens(pieces)
            if chunk.choices and chunk.choices[0].finish_reason:
                finish = chunk.choices[0].finish_reason
        # litellm ends every stream with a finish chunk of its own; what the provider sent is kept apart.
        finish = getattr(stream, "received_finish_reason", finish)
    except Exception as exc:
        # A stream that breaks once it has begun was answered and paid for: whatever litellm calls the break
        # (since 1.110 its own MidStreamFallbackError), it is the cut stream below, counted and asked again.
        if type(exc).__name__ not in STREAM_BREAKS or not chunks:
            raise
        finish = None
    if not chunks:
        raise TransientError("the provider sent an empty stream", usage=Usage(calls=1))
    response = litellm.stream_chunk_builder(chunks, messages=kwargs["messages"])
    usage = getattr(response, "usage", None)
    text = (response.choices[0].message.content or "") if response.choices else ""
    if usage is None or not getattr(usage, "total_tokens", 0):
        prompt = litellm.token_counter(model=kwargs["model"], messages=kwargs["messages"])
        completion = litellm.token_counter(model=kwargs["model"], text=text, count_response_tokens=True)
        response.usage = litellm.Usage(prompt_tokens=prompt, completion_tokens=completion,
                                       total_tokens=prompt + completion)
    if not finish or not text.strip():
        spent = usage_of(response, kwargs, text)
        why = "ended before the reply was finished" if finish is None else "ended with no text"
        raise TransientError(f"the stream {why} ({pieces} pieces arrived); asked again", usage=spent)
    return response, finish


# Providers that cache only the prompt prefixes marked with `cache_control` (litellm passes the
# marks on); OpenAI, Gemini and DeepSeek cache repeated prefixes by themselves.
MARKED = ("anthropic/", "bedrock/", "vertex_ai/", "openrouter/anthropic/")


def cache_marked(p: Panelist, spec: CallSpec, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with the system prompt and the repeating start of the first user prompt marked for caching."""
    if not (p.model.startswith(MARKED) and "claude" in p.model):
        return messages
    out, first_user = [], True
    for original, m in zip(spec.messages + messages[len(spec.messages):], messages, strict=True):
        text = m.get("content")
        if not isinstance(text, str) or not text:
            out.append(m)
        elif m["role"] == "system":
            out.append({**m, "content": [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]})
        elif m["role"] == "user" and first_user and CACHE_BREAK in str(original.get("content")):
            first_user = False
            head = str(original["content"]).split(CACHE_BREAK, 1)[0]
            out.append({**m, "content": [{"type": "text", "text": head, "cache_control": {"type": "ephemeral"}},
                                         {"type": "text", "text": text[len(head):]}]})
        else:
            out.append(m)
    return out


def usage_of(response: Any, kwargs: dict[str, Any], text: str) -> Usage:
    """The response's usage, through the one sanitiser every client uses."""
    u = getattr(response, "usage", None)
    details = getattr(u, "prompt_tokens_details", None)
    return sane_usage(getattr(u, "prompt_tokens", None), getattr(u, "completion_tokens", None),
                      getattr(details, "cached_tokens", None), kwargs["messages"], text, kwargs.get("max_tokens"))


class LitellmProvider:
    simulated = False

    def __init__(self, mark_cache: bool = True):
        self.mark_cache = mark_cache  # the discussion's `promptCache`: auto (True) or off

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float,
                       on_tokens: OnTokens | None = None) -> Completion:
        litellm = load()
        p = spec.panelist
        sent = cache_marked(p, spec, messages) if self.mark_cache else messages
        options, defaults = member_options(p, spec)
        kwargs: dict[str, Any] = {"model": p.model, "messages": sent, "timeout": timeout, "max_retries": 0, **options}
        if (form := response_format(litellm, p, spec)) is not None:
            kwargs["response_format"] = form
        if p.api_base:
            kwargs["api_base"] = p.api_base
        key = os.environ.get(p.api_key_env) if p.api_key_env else None
        if key:
            kwargs["api_key"] = key
        elif p.api_base:
            kwargs["api_key"] = "not-needed"  # local servers often take no key
        try:
            try:
                response, finish = await self._send(litellm, kwargs | defaults, on_tokens)
            except Exception as exc:
                if not (defaults and type(exc).__name__ == "UnsupportedParamsError"):
                    raise
                # litellm refuses before sending: the model takes no such option, so it is asked as it is.
                response, finish = await self._send(litellm, kwargs, on_tokens)
        except Exception as exc:
            raise classify(exc, p) from None
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise ValueError("the provider sent a reply with no choices")
        text = choices[0].message.content or ""
        if getattr(choices[0].message, "reasoning_content", None):
            # Thinking the provider (or litellm, from <think> tags) set apart: never part of the answer.
            if not text.strip():
                raise TransientError("the model sent only its reasoning and no answer (raise its max_tokens?)",
                                     usage=Usage(calls=1))
            text = text.lstrip("\n")
        finish = finish or getattr(choices[0], "finish_reason", None)
        usage = usage_of(response, kwargs, text)
        usage.cost = sane_cost(self.price(p, usage.prompt_tokens, usage.completion_tokens) if usage.recounted
                               else call_cost(litellm, p, response, usage.prompt_tokens, usage.completion_tokens))
        return Completion(text, usage, None if finish in (None, "stop") else str(finish))

    @staticmethod
    async def _send(litellm: Any, kwargs: dict[str, Any], on_tokens: OnTokens | None) -> tuple[Any, str | None]:
        if on_tokens is None:
            return await litellm.acompletion(**kwargs), None
        return await streamed(litellm, kwargs, on_tokens)

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        if p.price is not None:
            return own_price(p, prompt_tokens, completion_tokens)

        return table_price(p.model, prompt_tokens, completion_tokens)  # litellm's own table, without its import

    def missing_keys(self, panelists: list[Panelist]) -> list[str]:
        missing = []
        for p in panelists:
            if p.api_key_env:
                if not os.environ.get(p.api_key_env):
                    missing.append(f"{p.api_key_env} (for {p.id})")
            elif not p.api_base:
                provider = p.model.split("/", 1)[0]
                if provider in KEY_VARIABLES:  # the usual providers: no need to import litellm to know
                    names = KEY_VARIABLES[provider]
                    if not any(os.environ.get(n) for n in names):
                        missing.append(f"{names[0]} (for {p.id})")
                    continue
                try:
                    report = load().validate_environment(model=p.model)
                except Exception:  # unknown provider: let the call report it
                    continue
                missing += [f"{var} (for {p.id})" for var in one_of(report.get("missing_keys") or [])]
        return missing

    def unroutable(self, panelists: list[Panelist]) -> list[Panelist]:
        """Those whose model litellm cannot place with a provider (and no `api_base` says where it is)."""
        unknown = []
        for p in panelists:
            if p.api_base or p.model.split("/", 1)[0] in KEY_VARIABLES:
                continue  # the usual providers: no need to import litellm to know
            try:
                load().get_llm_provider(model=p.model)
            except Exception:  # noqa: BLE001 - litellm's BadRequestError, or whatever a release raises instead
                unknown.append(p)
        return unknown

    def warm_up(self, panelists: list[Panelist]) -> None:
        # Seconds of import that must not eat into the first call's timeout: litellm's own, the OpenAI SDK's
        # resources (450 modules, 0.6 s), and whatever else litellm's first call to a provider imports, which
        # changes from release to release. So litellm itself makes that first call, answered by its own mock
        # without a request: each provider's path is imported here, whatever the version.
        from . import http

        litellm = load()
        http.warm_up()
        if any(through_openai_sdk(litellm, p.model) for p in panelists):
            with contextlib.suppress(ImportError):
                import openai.resources  # noqa: F401
        for model in {p.model.split("/", 1)[0]: p.model for p in panelists}.values():
            with contextlib.suppress(Exception):  # a model litellm cannot route: its real call says why
                litellm.completion(model=model, messages=[{"role": "user", "content": "."}], mock_response=".")

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        missing = self.missing_keys([p])
        key = "ok" if not missing else "fail: missing " + ", ".join(m.split(" ")[0] for m in missing)
        return Diagnosis(key, price_check(p), endpoint(p, timeout))


def call_cost(litellm: Any, p: Panelist, response: Any, prompt: int, completion: int) -> float | None:
    """What a call cost: at the member's own price if it gives one, else litellm's; None if nobody prices it."""
    if p.price is not None:
        return own_price(p, prompt, completion)
    hidden = getattr(response, "_hidden_params", None) or {}
    if "response_cost" in hidden:  # litellm priced the call already; pricing it again cost ~2 ms a call
        return None if hidden["response_cost"] is None else float(hidden["response_cost"])
    try:
        return float(litellm.completion_cost(completion_response=response))
    except Exception:  # litellm knows no price for this model
        return None


def own_price(p: Panelist, prompt_tokens: int, completion_tokens: int) -> float:
    rate_in, rate_out = p.price or (0.0, 0.0)
    return (prompt_tokens * rate_in + completion_tokens * rate_out) / 1_000_000


def price_check(p: Panelist) -> str:
    """Whether the model's calls can be priced; a model nobody prices fails, with a close name if there is one.

    litellm answers for a misspelt name of a known provider with a price of
    0 rather than an error, so the table itself is asked. A model on the
    member's own server (`api_base`) is expected to be unknown: a warning.
    """
    if p.price is not None:
        return "ok (its own price)"
    provider, _, name = p.model.partition("/")
    if entry(p.model) is not None:
        return "ok"
    kin = same_provider(provider)
    unknown = f"unknown to litellm, cost not tracked{did_you_mean(name or p.model, kin)}"
    if p.api_base or p.allow_unknown_model:
        return f"warn: {unknown}"
    return f"fail: {unknown}; a typo? Else give the member `price: {{input: USD, output: USD}}` (per million " \
           "tokens) or `allowUnknownModel: true`"


def endpoint(p: Panelist, timeout: float) -> str:
    """Whether a panelist's own server answers and serves its model; hosted providers are not probed.

    A server busy generating (llama.cpp answers /models only between
    replies) is reported busy, not dead; a model the server does not list
    fails (an ollama typo would fail every call).
    """
    if not p.api_base:
        return "not checked (hosted)"
    import json

    import httpx

    from .http import get

    where = mask_url(p.api_base)
    key = os.environ.get(p.api_key_env or "")
    try:
        response = get(endpoint_url(p.api_base, "/models"),
                       {"Authorization": f"Bearer {key}"} if key else {}, timeout)
    except (httpx.TimeoutException, TimeoutError, DeadlinePassed):
        return f"warn: {where} is busy (no whole answer to /models within {timeout:g}s); a run will wait for it"
    except PolicyError as exc:
        return f"fail: {exc}"
    except (httpx.HTTPError, OSError) as exc:
        return f"fail: {where} does not answer ({network_fault(exc, where) or exc})"
    if response.status_code != 200:
        # It is up; whether /models is a route of it, or open to this key, is the server's business.
        return f"ok: up; model not checked (/models: HTTP {response.status_code})"
    body = response.content[:1_000_000]
    try:
        served = [str(m.get("id")) for m in json.loads(body).get("data") or [] if isinstance(m, dict)]
    except (ValueError, AttributeError):
        return "ok: up; model not checked (/models lists none)"
    name = p.model.split("/", 1)[1] if "/" in p.model else p.model
    if served and name not in served:
        return f"fail: {where} does not serve {name!r} (it lists {', '.join(served[:5])})"
    return "ok"


LITELLM = LitellmProvider()
LITELLM_UNMARKED = LitellmProvider(mark_cache=False)  # promptCache: off
