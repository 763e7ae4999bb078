"""A labelled set for `discuss eval`: items a person writes (evals/NAME.jsonl or .yaml), checked like every
file a person edits: unknown keys and wrong types refused by name."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator

from ..text.naming import is_safe_id


class ItemModel(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=True)
    id: StrictStr
    question: StrictStr = Field(min_length=1, max_length=4000)
    answer: StrictStr | int | float
    answer_type: Literal["number", "choice", "text"] = Field(alias="answerType")
    aliases: list[StrictStr] = Field(default=[])
    background: StrictStr = ""
    # The closed list this item's answer is one of (a `text` answer: True/False, named options); a read outside
    # it is ungradable. A `choice` item's list is the letters its question offers.
    choices: list[StrictStr] = Field(default=[], max_length=100)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not is_safe_id(value):
            raise ValueError(f"id {value!r} must be a safe name (lowercase letters, digits, '.', '_', '-')")
        return value


class SetModel(BaseModel):
    """A set in YAML: where it comes from and under which licence, and its items."""

    model_config = ConfigDict(strict=True, extra="forbid")
    name: StrictStr | None = None
    source: StrictStr = ""
    licence: StrictStr = ""
    # How a reply's answer is read (text/grading.py's rules); the report records it.
    rule: Literal["answer-line", "gsm8k-strict", "gsm8k-flexible", "bbh"] = "answer-line"
    # The closed list every item's answer is one of, where an item names none of its own.
    choices: list[StrictStr] = Field(default=[], max_length=100)
    items: list[ItemModel] = Field(min_length=1)
