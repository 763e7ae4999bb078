"""Everything a plugin imports: `from discuss.plugin import Protocol, Step, ...`.

A protocol is a class with its rules (`Protocol`) and, where it needs them,
three optional parts: how its rounds are kept (`RoundStorage`), how it is
shown (`Presentation`) and what its rounds decided (`Figures`). Its prompts
(`prompts/*.j2`) and site partial (`site.html.j2`) are found beside its
module. It is registered under the entry-point group `discuss.protocols`.

A provider (who answers a call) subclasses `Provider` and is registered
under `discuss.providers`. Names here are the public surface: what is not
here may change between versions.
"""

from __future__ import annotations

from pydantic import Field
from typing_extensions import TypedDict  # what pydantic checks notes with on Python 3.11 (typing's is refused)

from .calls import CallResult, CallSpec, PersonForm
from .domain import Discussion, Judgement, Panelist, Question, Reply, Round, RoundFigures, Score, Usage
from .errors import InputError, RunError
from .protocols.base import (
    Context,
    Phase,
    Plan,
    Protocol,
    Setup,
    Step,
    make_labels,
    messages,
    record_failure,
    record_reply,
    referee,
    require_replies,
)
from .protocols.parts import Figures, Presentation, RoundStorage
from .providers.base import (
    Completion,
    Diagnosis,
    Local,
    Provider,
    ProviderPlugin,
    TransientError,
    Waiting,
    Where,
)
from .schema.settings import ProtocolSettings
from .text.conclusions import CONCLUSION_SCHEMA, parse_conclusion

__all__ = [
    "CONCLUSION_SCHEMA", "CallResult", "CallSpec", "Completion", "Context", "Diagnosis", "Discussion", "Field",
    "Figures", "InputError", "Judgement", "Local", "Panelist", "PersonForm", "Phase", "Plan", "Presentation",
    "Protocol", "ProtocolSettings", "Provider", "ProviderPlugin", "Question", "Reply", "Round", "RoundFigures", "RoundStorage",
    "RunError", "Score", "Setup", "Step", "TransientError", "TypedDict", "Usage", "Waiting", "Where", "make_labels", "messages",
    "parse_conclusion", "record_failure", "record_reply", "referee", "require_replies",
]
