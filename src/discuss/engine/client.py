"""The model client: the one way a command calls models, built once per command.

A `PanelClient` holds what every call of a command shares: the project's
providers' limits (`limits:` in panels.yaml, and how wide each local server
says it is), the prompt templates, the progress callbacks, and the panel's
settings. Each discussion (or each arm of an eval) gets its gateway from
it, under its own settings where it has them and the panel's otherwise, so
the same timeout, attempts, retries and reply cap reach the server from
every command and every arm. This module is the only place a `Gateway` or
a `ProviderLimits` is made; a command that calls models builds one client
and passes it down.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ..calls import CallResult, CallSpec
from ..domain import Panelist, Settings
from ..providers import Provider, route
from ..providers.human import HumanProvider
from ..store.layout import Layout
from ..store.panels import load_limits
from ..text.prompting import Prompts
from .gateway import Gateway, ProviderLimits

OnEvent = Callable[[str, CallSpec, CallResult | None], None]
OnTokens = Callable[[CallSpec, int], None]
OnNote = Callable[[str], None]


class PanelClient:
    """What one command's calls share, and the gateway each discussion or arm calls through.

    `settings`: the panel's, which a caller without settings of its own (an
    eval's baseline arms) runs under. `local`: the limit of a server on this
    machine that `limits:` does not name (None: unlimited, for a command that
    only reads the limits).
    """

    def __init__(self, root: Path, settings: Settings | None = None, *, on_event: OnEvent | None = None,
                 on_tokens: OnTokens | None = None, on_note: OnNote | None = None, local: int | None = 1):
        self.root = root
        self.layout = Layout(root)
        self.settings = settings or Settings()
        self.on_event = on_event
        self.on_tokens = on_tokens
        self.limits = ProviderLimits(load_limits(self.layout.panels), local=local, on_note=on_note)
        self._prompts: Prompts | None = None

    @property
    def prompts(self) -> Prompts:
        """The project's prompt templates, read once for every discussion of the command."""
        if self._prompts is None:
            self._prompts = Prompts(self.layout.prompts)
        return self._prompts

    def gateway(self, settings: Settings | None = None, folder: Path | None = None, priority: int = 0) -> Gateway:
        """The gateway of one discussion (under its `settings`) or one baseline arm (the panel's).

        `folder`: the discussion's, where a person on the panel finds the forms
        to fill in. `priority`: where calls wait at a provider's limit, lower
        goes first.
        """
        s = settings or self.settings
        people = HumanProvider(folder, s.person_wait_hours)
        return Gateway(providers=partial(route, scripts=self.layout.scripts, people=people,
                                         mark_cache=s.prompt_cache != "off"),
                       timeout=s.timeout_seconds, attempts=s.attempts, base_delay=s.retry_base_delay,
                       asks=s.vote_attempts, on_event=self.on_event, limits=self.limits,
                       retry_timeouts=s.retry_timeouts, max_chars=s.max_reply_chars, on_tokens=self.on_tokens,
                       priority=priority)

    def named_limit(self, p: Panelist) -> int | None:
        """The tightest limit `limits:` names for `p`'s server or provider; None where it names none."""
        keys = [p.api_base.rstrip("/") if p.api_base else "", self.limits.provider(p)]
        found = [n for k in keys if k and self.limits.named(k) and (n := self.limits.limit_of(k))]
        return min(found) if found else None


def estimating(stand_ins: Provider) -> Gateway:
    """A gateway whose every call goes to `stand_ins` (the estimator), once: a dry run asks no one and holds
    no limit."""
    route_all: Callable[[Panelist], Provider] = lambda p: stand_ins  # noqa: E731
    return Gateway(attempts=1, asks=1, providers=route_all)


def for_discussion(root: Path, d: Any, **callbacks: Any) -> PanelClient:
    """The client of a command over one discussion: its settings are the panel's."""
    return PanelClient(root, d.settings, **callbacks)
