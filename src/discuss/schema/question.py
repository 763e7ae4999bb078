"""A question's front matter, as people write it.

The keys `discuss` reads are typed; other keys belong to the site (MkDocs
and its theme read front matter too) and pass untouched.
"""

from __future__ import annotations

import difflib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..text.naming import is_safe_id, unprintable

# Keys others read that sit close to ours: Project Dyson's, MkDocs' and the theme's, and follow-ups'.
KNOWN = frozenset({"priority", "sourcePhase", "sourceBOMItemId", "sourceBOMItemSlug", "description", "hide",
                   "template", "icon", "subtitle", "search", "followUpOf", "part", "phaseId", "status", "category"})


class FrontMatterModel(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=True)
    title: str = Field(min_length=1)
    slug: str | None = None
    question_id: str | int | None = Field(None, alias="questionId")
    question_type: str | None = Field(None, alias="questionType")
    status: str | None = None
    tags: list[str | int] = Field(default=[])
    protocol: str | None = None
    panel: str | None = None
    task_type: str | None = Field(None, alias="taskType")
    stakes: Literal["low", "medium", "high"] | None = None
    sources: list[str] = Field(default=[])  # files or globs beside the question, or URLs
    # The question asks for a decision: `yes-no`, or the options to choose from (`discuss verdict`).
    decision: Literal["yes-no"] | list[str] | None = None
    # Each panelist gives the probability that the answer is yes, each round (`discuss scores` grades them).
    forecast: Literal["yes-no"] | None = None
    # Earlier conclusions round 1 reads, cited [P1]...: `auto` (the nearest concluded ones) or their slugs.
    precedent: Literal["auto"] | list[str] | None = None

    @model_validator(mode="before")
    @classmethod
    def _misspelt(cls, value: Any) -> Any:
        """A key one letter or two from one of ours is a typo (`protocl: debate`), not the site's own field.

        Other keys belong to the site, its theme or Project Dyson and pass;
        `x-...` keys are always left alone.
        """
        if isinstance(value, dict):
            ours = {f.alias or name for name, f in cls.model_fields.items()}
            for key in value:
                if isinstance(key, str) and key not in ours and not key.startswith("x-") and key not in KNOWN:
                    close = difflib.get_close_matches(key, sorted(ours), n=1, cutoff=0.8)
                    if close:
                        raise ValueError(f"unknown key {key!r}; did you mean {close[0]!r}? "
                                         "(a key of your own can start with x-)")
        return value

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("front matter has no 'title'")
        if (hidden := unprintable(value.strip())) is not None:
            raise ValueError(f"the title holds {hidden}, which shows a reader something else than it says; "
                             "a title is one line of printable text")
        return value.strip()

    @field_validator("decision")
    @classmethod
    def _decision(cls, value: Any) -> Any:
        if isinstance(value, list):
            options = [str(o).strip() for o in value]
            if not 2 <= len(options) <= 12 or len(set(options)) != len(options) \
                    or not all(o and len(o) <= 80 and o.isprintable() and o != "unclear" for o in options):
                raise ValueError("decision: give yes-no, or 2 to 12 different options of up to 80 characters "
                                 "(not 'unclear', which the verdict keeps for a split panel)")
            return options
        return value

    @field_validator("precedent")
    @classmethod
    def _precedent(cls, value: Any) -> Any:
        if isinstance(value, list):
            if not 1 <= len(value) <= 9 or len(set(value)) != len(value) or not all(is_safe_id(v) for v in value):
                raise ValueError("precedent: give auto, or 1 to 9 different slugs of earlier discussions")
        return value

    @field_validator("slug")
    @classmethod
    def _slug(cls, value: str | None) -> str | None:
        if value is not None and not is_safe_id(value):
            raise ValueError(f"slug {value!r} is not a safe name (lowercase letters, digits, '-')")
        return value
