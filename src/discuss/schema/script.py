"""A scripted panelist's script, as people write it.

A script is a list of entries. The keys `task`, `round`, `ask` and `match`
say which calls an entry answers (a key left out matches any); exactly one
of `reply`, `json` or `fail` says how. `delay` waits before answering, so a
timeout can be rehearsed for real.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, model_validator

FAILURES = ("timeout", "error", "rate-limit")


class ScriptEntryModel(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=True)
    task: str | None = None
    round: int | None = Field(None, ge=1)
    ask: int | None = Field(None, ge=1)
    match: int | None = Field(None, ge=1)
    reply: str | None = None
    json_reply: Any = Field(None, alias="json")
    fail: Literal["timeout", "error", "rate-limit"] | None = None
    delay: float = Field(0.0, ge=0, le=600)

    @model_validator(mode="after")
    def one_action(self) -> ScriptEntryModel:
        given = [k for k, v in (("reply", self.reply), ("json", self.json_reply), ("fail", self.fail)) if v is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of reply, json or fail" + (f" (got {', '.join(given)})" if given else ""))
        return self

    def matches(self, task: str, ask: int, context: dict[str, Any]) -> bool:
        wanted = {"task": self.task, "ask": self.ask, "round": self.round, "match": self.match}
        seen = {"task": task, "ask": ask, "round": context.get("round"), "match": context.get("match")}
        return all(v is None or seen[k] == v for k, v in wanted.items())


class ScriptModel(RootModel[list[ScriptEntryModel]]):
    pass
