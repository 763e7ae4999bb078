"""What every provider is: the interface the gateway calls, the errors and results it shares, and what a
provider plugin is (which panelists it answers for) and what it may need of the run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..calls import CallSpec
from ..domain import Panelist, Usage

OnTokens = Callable[[int], None]  # told how many pieces of a streamed reply have arrived


class Local:
    """The defaults of a provider that answers here: no key to set, no cost, nothing to load."""

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        return 0.0

    def missing_keys(self, panelists: list[Panelist]) -> list[str]:
        return []

    def unroutable(self, panelists: list[Panelist]) -> list[Panelist]:
        return []

    def warm_up(self, panelists: list[Panelist]) -> None:
        pass


class Waiting(Exception):
    """A call that only a person can answer, who has not yet: `path` is their form."""

    def __init__(self, path: Path, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path, self.problem = path, problem


class TransientError(Exception):
    """A failure worth retrying (rate limit, server error, lost connection); `wait` from Retry-After."""

    def __init__(self, message: str, wait: float | None = None, usage: Usage | None = None):
        super().__init__(message)
        self.wait = wait
        self.usage = usage  # what the failed attempt cost, where the provider said or it can be counted


@dataclass(frozen=True)
class Diagnosis:
    """What `discuss doctor` shows for one panelist: each entry `ok...`, `warn: ...` or `fail: ...`."""

    key: str
    price: str
    endpoint: str


@dataclass(frozen=True)
class Completion:
    """What a provider returns for a call: the reply's text, what it cost, and why it stopped where that was not
    its end (`length`: cut at max_tokens)."""

    text: str
    usage: Usage
    finish_reason: str | None = None



class Provider(Protocol):
    # Stand-ins record no latency: their files must not change from run to run.
    simulated: bool

    async def complete(self, spec: CallSpec, messages: list[dict[str, str]], timeout: float,
                       on_tokens: OnTokens | None = None) -> Completion:
        """The reply's text and usage (and why it stopped, if not at its end).

        Raises TransientError for what may pass, anything else to fail.

        With `on_tokens`, a provider that can streams the reply and reports the
        pieces received so far; the text and usage returned are the same.
        """
        ...

    def price(self, p: Panelist, prompt_tokens: int, completion_tokens: int) -> float | None:
        """What a call would cost; None where no price is known."""
        ...

    def missing_keys(self, panelists: list[Panelist]) -> list[str]:
        """'VAR (for id)' for every key these panelists need and the environment lacks."""
        ...

    def diagnose(self, p: Panelist, timeout: float) -> Diagnosis:
        ...

    # Optional: `unroutable(panelists) -> list[Panelist]`, those whose model this provider cannot reach at all
    # (an unknown provider's name), refused before a file is written; a provider without it reaches all.

    def warm_up(self, panelists: list[Panelist]) -> None:
        """Load what the first calls of `panelists` need, so their timeouts count only the provider's time."""
        ...


@dataclass(frozen=True)
class Where:
    """What a provider may need of the run: the project's scripts folder, the provider of the discussion's
    people (their forms are in its folder), and whether prompts are marked for providers that cache only
    marked prefixes."""

    scripts: Path | None = None
    people: Provider | None = None
    mark_cache: bool = True

    @property
    def root(self) -> Path:
        """The project's root, where a coding agent's tool runs: the scripts folder is in its settings folder
        (discussions/scripts); the current folder where no project is named."""
        return self.scripts.parent.parent if self.scripts is not None else Path.cwd()


class ProviderPlugin:
    """One provider as a plugin: which panelists it answers for, and the provider that does."""

    def claims(self, p: Panelist) -> bool:
        raise NotImplementedError

    def provider(self, where: Where) -> Provider:
        raise NotImplementedError
