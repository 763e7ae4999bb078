"""The providers that come with discuss, as plugins like any other's; each module is imported when first used."""

from __future__ import annotations

from ..domain import CLI_PREFIX, OFFLINE_PREFIX, SCRIPTED_PREFIX, Panelist
from .base import Provider, ProviderPlugin, Where
from .offline import OFFLINE as found


class People(ProviderPlugin):
    """A person on the panel: calls become forms in the discussion's folder."""

    def claims(self, p: Panelist) -> bool:
        return p.human

    def provider(self, where: Where) -> Provider:
        # Each provider's module loads when a panel first names it: a run on one kind of provider never
        # imports the others' clients (httpx and h11, litellm, the agents' processes).
        from .human import HumanProvider

        return where.people or HumanProvider()


class Scripted(ProviderPlugin):
    """`scripted/<name>`: replies from discussions/scripts/<name>.yaml."""

    def claims(self, p: Panelist) -> bool:
        return p.model.startswith(SCRIPTED_PREFIX)

    def provider(self, where: Where) -> Provider:
        from .scripted import ScriptedProvider

        return ScriptedProvider(where.scripts)


class Offline(ProviderPlugin):
    """`offline/<name>`: the simulated panel."""

    def claims(self, p: Panelist) -> bool:
        return p.model.startswith(OFFLINE_PREFIX)

    def provider(self, where: Where) -> Provider:
        return found


class Agents(ProviderPlugin):
    """`cli/claude`, `cli/codex`, `cli/gemini`: a coding agent's own command-line tool, read-only."""

    def claims(self, p: Panelist) -> bool:
        return p.model.startswith(CLI_PREFIX)

    def provider(self, where: Where) -> Provider:
        from .agents import AgentProvider

        return AgentProvider(where.root)


class OpenAIHTTP(ProviderPlugin):
    """OpenAI's chat models and OpenAI-compatible servers litellm does not know: the light client."""

    def claims(self, p: Panelist) -> bool:
        from .openai_names import serves

        return serves(p)

    def provider(self, where: Where) -> Provider:
        from .openai_http import OPENAI_HTTP as found

        return found


class Litellm(ProviderPlugin):
    """Every other model, through litellm."""

    def claims(self, p: Panelist) -> bool:
        return True

    def provider(self, where: Where) -> Provider:
        from .litellm import LITELLM, LITELLM_UNMARKED

        return LITELLM if where.mark_cache else LITELLM_UNMARKED


PEOPLE, SCRIPTED, OFFLINE, AGENTS, OPENAI_HTTP, LITELLM = People(), Scripted(), Offline(), Agents(), OpenAIHTTP(), Litellm()
