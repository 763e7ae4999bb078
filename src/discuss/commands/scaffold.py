"""`discuss init`: the files of a new project, ready for `discuss ask` with the offline panel and `mkdocs build`.

Every file is written only where none exists, so `init` in a folder that
already holds some of them (a docs site, a .gitignore) adds what is missing
and changes nothing else.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..store.files import write_atomic
from ..store.layout import PANELS_FILE, SETTINGS_DIR
from ..store.questions import create_question, is_dyson_layout

PANELS = """\
# The panels of this project. `discuss run QUESTION --panel NAME` picks one; otherwise the
# question's `panel`, otherwise `default`. Keys come from the environment only, never from here.
panels:
  # Simulated panelists: no network, no key, deterministic; every file they write says so.
  offline:
    members:
      - {id: pragmatist, model: offline/pragmatist, name: Pragmatist (simulated), persona: Concise and actionable.}
      - {id: skeptic, model: offline/skeptic, name: Skeptic (simulated), persona: Sceptical of unproven assumptions.}
      - {id: visionary, model: offline/visionary, name: Visionary (simulated), persona: Thinks in decades.}
    judge: {id: referee, model: offline/referee, name: Referee (simulated)}
    synthesizer: {id: scribe, model: offline/scribe, name: Scribe (simulated)}
  # Real models: uncomment, set the keys in your environment, and `discuss doctor` checks them.
  # default:
  #   members:
  #     - {id: claude, model: anthropic/claude-opus-4-6, name: Claude}          # ANTHROPIC_API_KEY
  #     - {id: gemini, model: gemini/gemini-3.1-pro-preview, name: Gemini}      # GEMINI_API_KEY
  #     - {id: gpt, model: openai/gpt-5.2, name: GPT}                          # OPENAI_API_KEY
  # A model on this machine (ollama; llama.cpp and vLLM alike, with their own address):
  # local:
  #   members:
  #     - {model: 'openai/qwen2.5:7b', api_base: 'http://127.0.0.1:11434/v1', responseFormat: json_schema}
  #     - {model: 'openai/llama3.1:8b', api_base: 'http://127.0.0.1:11434/v1', responseFormat: json_schema}
"""

MKDOCS = """\
site_name: {quoted}
docs_dir: content
site_dir: site
theme:
  name: material
  font: false  # no web fonts from a CDN: the site works offline
plugins:
  - search
  - offline  # links and search work from site/index.html opened from disk
  - discuss
"""

HOME = """\
# {name}

Research questions and the panel discussions on them.
"""

GITIGNORE = """\
/site/
.venv/
__pycache__/
"""

GITATTRIBUTES = """\
# Discussions are written with LF line ends and read back byte for byte.
*.md text eol=lf
*.yaml text eol=lf
*.yml text eol=lf
"""


# Project Dyson's checkout keeps its questions here and publishes them with a site of its own.
DYSON_CONTENT = "src/content/research-questions"


def dyson_checkout(folder: Path) -> bool:
    return (folder / DYSON_CONTENT).is_dir()


def files(name: str, dyson: bool = False) -> dict[str, str]:
    """The files of a new project; in a Dyson checkout only the panel file, pointing at Dyson's questions
    (its site, its .gitignore and every file of its own stay as they are)."""
    if dyson:
        where = (f"# A Project Dyson checkout: its questions stay where its own site reads them.\n"
                 f"content: {DYSON_CONTENT}\n")
        return {f"{SETTINGS_DIR}/{PANELS_FILE}": where + PANELS}
    return {
        f"{SETTINGS_DIR}/{PANELS_FILE}": PANELS,
        "mkdocs.yml": MKDOCS.format(quoted=json.dumps(name)),
        "content/index.md": HOME.format(name=name),
        ".gitignore": GITIGNORE,
        ".gitattributes": GITATTRIBUTES,
    }


def init(folder: Path) -> list[Path]:
    """Write the files a project lacks; returns those written."""
    name = folder.resolve().name.replace("-", " ").replace("_", " ").strip().capitalize() or "Research discussions"
    dyson = dyson_checkout(folder) and not (folder / SETTINGS_DIR / PANELS_FILE).exists()
    written = []
    for rel, text in files(name, dyson).items():
        path = folder / rel
        if not path.exists():
            write_atomic(path, text)
            written.append(path)
    if not dyson and not dyson_checkout(folder):
        (folder / "content" / "questions").mkdir(parents=True, exist_ok=True)
    return written


def site_without_plugin(folder: Path) -> bool:
    """Whether the folder's own mkdocs.yml publishes without the discuss plugin (a site of its own)."""
    config = folder / "mkdocs.yml"
    if not config.is_file():
        return False
    text = config.read_text(encoding="utf-8", errors="replace")
    return not any(line.strip().lstrip("-").strip() in ("discuss", "discuss:") for line in text.splitlines())


def new_question(content: Path, title: str, section: str | None = None, tags: list[str] | None = None,
                 dyson: bool | None = None, bom: tuple[str | None, str | None] = (None, None)) -> tuple[Path, str]:
    """A question file made under `content` (`section`, default questions, or Project Dyson's first phase where
    the content holds Dyson questions or `dyson` says so): its path, and where its numbering came from ("")."""
    as_dyson = is_dyson_layout(content) if dyson is None else dyson
    where = section or ("research-questions/phase-1" if as_dyson else "questions")
    return create_question(content, where, title, list(tags or []), dyson=as_dyson, bom=bom)
