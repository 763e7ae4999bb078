"""Prompt templates: jinja2 files shipped with the package, overridable per project.

Shared templates live in `discuss/prompts/`, a protocol's own in its
package's `prompts/`. A file of the same name in the project's prompt folder
replaces the packaged one, so a team can tune its prompts in review like any
other change.
"""

from __future__ import annotations

from pathlib import Path

import jinja2


class Prompts:
    def __init__(self, override_dir: Path | None = None):
        loaders: list[jinja2.BaseLoader] = []
        if override_dir and override_dir.is_dir():
            loaders.append(jinja2.FileSystemLoader(str(override_dir)))
        loaders.append(jinja2.PackageLoader("discuss", "prompts"))
        from .protocols import package_dirs

        loaders += [jinja2.PackageLoader("discuss", f"protocols/{name}/prompts") for name in package_dirs()]
        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader(loaders),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            autoescape=False,  # prompts are plain text for a model, not HTML
        )

    def render(self, name: str, **context) -> str:
        return self.env.get_template(f"{name}.j2").render(**context).strip() + "\n"


def estimate_tokens(text: str) -> int:
    """A cheap upper-bound estimate: about four characters a token."""
    return (len(text) + 3) // 4
