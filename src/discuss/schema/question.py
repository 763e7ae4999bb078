"""A question's front matter, as people write it.

The keys `discuss` reads are typed; other keys belong to the site (MkDocs
and its theme read front matter too) and pass untouched.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..naming import is_safe_id


class FrontMatterModel(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=True)
    title: str = Field(min_length=1)
    slug: str | None = None
    question_id: str | int | None = Field(None, alias="questionId")
    question_type: str | None = Field(None, alias="questionType")
    status: str | None = None
    tags: list[str | int] = Field(default_factory=list)
    protocol: str | None = None
    panel: str | None = None
    task_type: str | None = Field(None, alias="taskType")
    stakes: Literal["low", "medium", "high"] | None = None
    sources: list[str] = Field(default_factory=list)  # files or globs beside the question, or URLs

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("front matter has no 'title'")
        return value.strip()

    @field_validator("slug")
    @classmethod
    def _slug(cls, value: str | None) -> str | None:
        if value is not None and not is_safe_id(value):
            raise ValueError(f"slug {value!r} is not a safe name (lowercase letters, digits, '-')")
        return value
