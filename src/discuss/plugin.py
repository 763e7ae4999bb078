# ruff: noqa: F401 - the imports for type checkers are the public names, read at run time through `_FROM`

"""Everything a plugin imports: `from discuss.plugin import Protocol, Step, ...`.

A protocol is a class with its rules (`Protocol`) and, where it needs them,
three optional parts: how its rounds are kept (`RoundStorage`), how it is
shown (`Presentation`) and what its rounds decided (`Figures`). Its prompts
(`prompts/*.j2`) and site partial (`site.html.j2`) are found beside its
module. It is registered under the entry-point group `discuss.protocols`.
Beside the classes come the helpers a protocol's rounds are written with:
reading a model's JSON reply and giving its schema, the stand-in replies of
the offline panel, the agreement measures and convergence tests, the checks
`discuss verify` recomputes with. The nine built-in protocols import discuss
from here and nowhere else, so what they need is here.

A provider (who answers a call) subclasses `Provider` and is registered
under `discuss.providers`. Names here are the public surface: what is not
here may change between versions.

Each name is loaded when it is first asked for, with the module that
defines it: a protocol's module that imports three names loads those three
modules and no others, so a command that reads one part of a protocol (a
status reads its figures) loads no template engine or provider for it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names as `_FROM` below, for type checkers (a test checks the two agree)
    from pydantic import Field
    from typing_extensions import TypedDict  # what pydantic checks notes with on Python 3.11 (typing's is refused)

    from .calls import CallResult, CallSpec, PersonForm
    from .domain import (
        Discussion,
        Judgement,
        Panelist,
        Question,
        Reply,
        Round,
        RoundFigures,
        Score,
        Settings,
        Usage,
        paid_usage,
        usage_dict,
        usage_from,
    )
    from .errors import InputError, RunError
    from .protocols import checks
    from .protocols.base import (
        Context,
        Phase,
        Plan,
        Protocol,
        Setup,
        Step,
        convergence_line,
        dissent_context,
        make_labels,
        messages,
        question_turn,
        record_failure,
        record_reply,
        referee,
        require_measure,
        require_replies,
    )
    from .protocols.parts import Figures, Presentation, RoundStorage
    from .providers.base import Completion, Diagnosis, Local, Provider, ProviderPlugin, TransientError, Waiting, Where
    from .rules.agreement import agreement, lexical_similarity, measure, pairwise
    from .rules.convergence import Convergence, agreement_test, in_words, judge_test, title_overlap, titles
    from .rules.signatures import names_in, words_of
    from .rules.spread import spread
    from .schema.settings import ProtocolSettings
    from .text.conclusions import CONCLUSION_SCHEMA, parse_conclusion
    from .text.forecasts import FORECAST_ASK, probability_of, with_probability
    from .text.jsonreply import ReplyError, extract_object, fraction, per_label, text_field, titled_list
    from .text.naming import is_safe_id
    from .text.outcomes import describe
    from .text.prompting import Prompts, estimate_tokens
    from .text.replyschemas import FRACTION, TEXT, Schema, listed, obj, one_of, titled
    from .text.standins import NOTE, hash_of, pick, respond
    from .text.tokens import fitting

# Each public name by the module it comes from, and the modules given whole (their names are a namespace).
_FROM: dict[str, tuple[str, ...]] = {
    "pydantic": ("Field",),
    "typing_extensions": ("TypedDict",),
    "discuss.calls": ("CallResult", "CallSpec", "PersonForm"),
    "discuss.domain": ("Discussion", "Judgement", "Panelist", "Question", "Reply", "Round", "RoundFigures", "Score",
                       "Settings", "Usage", "paid_usage", "usage_dict", "usage_from"),
    "discuss.errors": ("InputError", "RunError"),
    "discuss.protocols.base": ("Context", "Phase", "Plan", "Protocol", "Setup", "Step", "convergence_line",
                               "dissent_context", "make_labels", "messages", "question_turn", "record_failure",
                               "record_reply", "referee", "require_measure", "require_replies"),
    "discuss.protocols.parts": ("Figures", "Presentation", "RoundStorage"),
    "discuss.providers.base": ("Completion", "Diagnosis", "Local", "Provider", "ProviderPlugin", "TransientError",
                               "Waiting", "Where"),
    "discuss.rules.agreement": ("agreement", "lexical_similarity", "measure", "pairwise"),
    "discuss.rules.convergence": ("Convergence", "agreement_test", "in_words", "judge_test", "title_overlap", "titles"),
    "discuss.rules.signatures": ("names_in", "words_of"),
    "discuss.rules.spread": ("spread",),
    "discuss.schema.settings": ("ProtocolSettings",),
    "discuss.text.conclusions": ("CONCLUSION_SCHEMA", "parse_conclusion"),
    "discuss.text.forecasts": ("FORECAST_ASK", "probability_of", "with_probability"),
    "discuss.text.jsonreply": ("ReplyError", "extract_object", "fraction", "per_label", "text_field", "titled_list"),
    "discuss.text.naming": ("is_safe_id",),
    "discuss.text.outcomes": ("describe",),
    "discuss.text.prompting": ("Prompts", "estimate_tokens"),
    "discuss.text.replyschemas": ("FRACTION", "TEXT", "Schema", "listed", "obj", "one_of", "titled"),
    "discuss.text.standins": ("NOTE", "hash_of", "pick", "respond"),
    "discuss.text.tokens": ("fitting",),
}
_MODULES: dict[str, str] = {"checks": "discuss.protocols.checks"}
_WHERE = {name: module for module, names in _FROM.items() for name in names}

__all__ = sorted([*_WHERE, *_MODULES])


def __getattr__(name: str) -> Any:
    """A public name, loaded with its module the first time it is asked for."""
    if name in _MODULES:
        value = import_module(_MODULES[name])
    elif name in _WHERE:
        value = getattr(import_module(_WHERE[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # asked once: the next use is an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
