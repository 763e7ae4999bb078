"""The panel file, `discussions/panels.yaml`, as people write it.

Shapes and types here; the rules that span fields (ids unique, a chairman
named by id must be a member) are the store's, which builds the domain's
panels from these models.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator, model_validator

from ..domain import CLI_PREFIX, CLI_TOOLS, SCRIPTED_PREFIX
from ..text.naming import derived_id, did_you_mean, inside_project, is_safe_id, unprintable
from ..text.secrets import looks_like_key

MAX_MEMBERS = 26  # answers are labelled A-Z for those who judge them
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
FORBID = ConfigDict(strict=True, extra="forbid")


class OptionsModel(BaseModel):
    """What a member passes to its provider with every call, checked for type and range."""

    model_config = ConfigDict(strict=True, extra="forbid")
    temperature: float | None = Field(None, ge=0, le=2)
    top_p: float | None = Field(None, ge=0, le=1)
    top_k: StrictInt | None = Field(None, ge=1)
    seed: StrictInt | None = None
    max_tokens: StrictInt | None = Field(None, ge=1)
    stop: str | list[str] | None = None
    presence_penalty: float | None = Field(None, ge=-2, le=2)
    frequency_penalty: float | None = Field(None, ge=-2, le=2)
    extra_body: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _numbers(cls, value: Any) -> Any:
        # A whole number is a fine temperature (`temperature: 1`); strict mode would refuse it.
        if isinstance(value, dict):
            return {k: float(v) if k in ("temperature", "top_p", "presence_penalty", "frequency_penalty")
                    and isinstance(v, int) and not isinstance(v, bool) else v for k, v in value.items()}
        return value


class PriceModel(BaseModel):
    """A member's own price, in dollars per million tokens: for a model litellm does not price."""

    model_config = ConfigDict(strict=True, extra="forbid")
    input: float = Field(ge=0)
    output: float = Field(ge=0)

    @model_validator(mode="before")
    @classmethod
    def _numbers(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: float(v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in value.items()}
        return value


class MemberModel(BaseModel):
    """A panelist: `model` at least; a plain string is taken as the model."""

    model_config = FORBID
    model: str
    id: str | None = None
    name: str | None = None
    persona: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    options: OptionsModel | None = None
    response_format: Literal["auto", "json_schema", "json_object", "text"] = Field("auto", alias="responseFormat")
    price: PriceModel | None = None
    # A model litellm does not know is a typo until the member says otherwise (or gives its price).
    allow_unknown_model: bool = Field(False, alias="allowUnknownModel")
    # A coding agent's tool (`cli/...`): its executable (else the tool's name on PATH) and flags of ours to add.
    command: StrictStr | None = None
    args: list[StrictStr] | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain_model(cls, value: Any) -> Any:
        if isinstance(value, dict) and "id" in value and value["id"] is None:
            raise ValueError("'id' is empty; give the member an id, or leave the key out to take the model's name")
        if isinstance(value, dict) and value.get("human") is True:
            # A person: answers and ballots come through files; `human/<id>` routes their calls there.
            if not isinstance(value.get("id"), str) or "model" in value:
                raise ValueError("a person (human: true) needs an id and no model")
            value = {k: v for k, v in value.items() if k != "human"} | {"model": f"human/{value['id']}"}
        return {"model": value} if isinstance(value, str) else value

    @field_validator("model")
    @classmethod
    def _model(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("'model' is missing")
        value = value.strip()
        if value.startswith(SCRIPTED_PREFIX) and not is_safe_id(value.removeprefix(SCRIPTED_PREFIX)):
            raise ValueError(f"{value!r}: a scripted member names a script of discussions/scripts/ by a safe name "
                             "(lowercase letters, digits, '.', '_' or '-'; no '/' or '..'), such as scripted/alice")
        if value.startswith(CLI_PREFIX) and value.removeprefix(CLI_PREFIX) not in CLI_TOOLS:
            raise ValueError(f"{value!r}: a coding agent on the panel is one of "
                             + ", ".join(CLI_PREFIX + t for t in CLI_TOOLS))
        return value

    @model_validator(mode="after")
    def _agent_only(self) -> MemberModel:
        """`command:` and `args:` belong to a coding agent's tool; each a line of printable text."""
        given = [k for k in ("command", "args") if getattr(self, k) is not None]
        if given and not self.model.startswith(CLI_PREFIX):
            raise ValueError(f"{' and '.join(given)}: only a coding agent's member (model: cli/claude, cli/codex "
                             "or cli/gemini) runs a command")
        for text in [self.command or "", *(self.args or [])]:
            if unprintable(text) is not None:
                raise ValueError(f"command and args are printable text on one line; {text[:40]!r} is not")
            if looks_like_key(text):
                raise ValueError("command and args hold what looks like a key (not shown here); a tool reads its key "
                                 "from its own environment variable or login")
        return self

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        if value is not None and (hidden := unprintable(value)) is not None:
            raise ValueError(f"name {value.strip()!r} holds {hidden}, which shows a reader something else than "
                             "it says; a name is printable text")
        return value

    @field_validator("id")
    @classmethod
    def _id(cls, value: str | None) -> str | None:
        if value is not None and not is_safe_id(value.strip()):
            raise ValueError(f"id {value!r} must be lowercase letters, digits, '.', '_' or '-', start with a "
                             "letter or digit, have no '..' and not be a device name (con, nul...)")
        return value.strip() if value is not None else None

    @field_validator("api_key_env")
    @classmethod
    def _env(cls, value: str | None) -> str | None:
        if value is not None and looks_like_key(value):
            raise ValueError("api_key_env holds what looks like a key itself (not shown here); give the name of the "
                             "environment variable that holds the key, such as GEMINI_API_KEY, and set the key there")
        if value is not None and not ENV_NAME.match(value):
            raise ValueError("api_key_env must name an environment variable")
        return value

    @property
    def panelist_id(self) -> str:
        """The id given, else one derived from the model string (made unique within its panel by the store)."""
        return self.id or derived_id(self.model)


class PanelModel(BaseModel):
    model_config = FORBID
    members: list[MemberModel] = Field(min_length=1)
    protocol: str | None = None
    # A member's id, or a model of its own given like a member.
    chairman: str | MemberModel | None = None
    judge: str | MemberModel | None = None
    synthesizer: str | MemberModel | None = None
    # Shared settings and any protocol's own; the store checks them (it knows the protocols).
    settings: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _members(cls, value: Any) -> Any:
        if isinstance(value, dict) and (not isinstance(value.get("members"), list) or not value["members"]):
            close = [k for k in value if k not in cls.model_fields and did_you_mean(str(k), ["members"])]
            raise ValueError("needs a non-empty 'members' list"
                             + "".join(f" ({k!r}: did you mean members?)" for k in close[:1]))
        if isinstance(value, dict) and len(value["members"]) > MAX_MEMBERS:
            raise ValueError(f"has {len(value['members'])} members; at most {MAX_MEMBERS} sit on a panel, since "
                             "their answers are judged under the letters A to Z")
        return value


class SearchModel(BaseModel):
    """The search endpoint `sources search` asks: SearXNG's JSON API, Brave Search or Tavily."""

    model_config = FORBID
    url: StrictStr
    kind: Literal["searxng", "brave", "tavily"] = "searxng"
    key_env: StrictStr | None = Field(None, alias="keyEnv")

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")) or looks_like_key(value):
            raise ValueError("url: the endpoint's http(s) address, with no key in it (keyEnv names its variable)")
        return value

    @field_validator("key_env")
    @classmethod
    def _key_env(cls, value: str | None) -> str | None:
        if value is not None and (looks_like_key(value) or not ENV_NAME.match(value)):
            raise ValueError("keyEnv must name an environment variable (the key itself goes in the environment)")
        return value


class PanelFileModel(BaseModel):
    model_config = FORBID
    panels: dict[str, PanelModel]
    # Most requests at once per provider (the model string's prefix).
    limits: dict[str, StrictInt] = Field(default={})
    # Folders of the project, beside content/, that a question's sources may come from.
    source_folders: list[str] = Field(default=[], alias="sourceFolders")
    # Where the questions are, when not content/ (a Project Dyson checkout: src/content/research-questions).
    content: StrictStr | None = None
    # The search endpoint of `discuss sources search`.
    search: SearchModel | None = None

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, value: Any) -> Any:
        if not isinstance(value, dict) or not isinstance(value.get("panels"), dict):
            raise ValueError("expected a mapping with a 'panels' mapping inside")
        return value

    @field_validator("source_folders")
    @classmethod
    def _folders(cls, value: list[str]) -> list[str]:
        for folder in value:
            if not inside_project(folder):
                raise ValueError(f"sourceFolders: {folder!r} must be a folder of the project, such as sources "
                                 "(no '..', no hidden or settings folder)")
        return value

    @field_validator("content")
    @classmethod
    def _content(cls, value: str | None) -> str | None:
        if value is not None and not inside_project(value):
            raise ValueError(f"{value!r} must be a folder of the project, such as "
                             "src/content/research-questions (no '..', no hidden or settings folder)")
        return value

    @field_validator("limits")
    @classmethod
    def _limits(cls, value: dict[str, int]) -> dict[str, int]:
        if not all(v > 0 for v in value.values()):
            raise ValueError("'limits' must map providers to positive whole numbers")
        return value
