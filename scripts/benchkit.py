"""Shared set-up for the benchmarks: a project in a temporary folder, and a fake server."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from fakeserver import DEFAULT, Action, FakeLLM  # noqa: E402,F401

QUESTION = "---\ntitle: Question {n}?\nslug: q{n:03d}\ntags: [bench]\n---\n\nBackground of question {n}.\n"


HOSTED = ["openai/gpt-4o-mini", "openai/gpt-4o", "openai/gpt-4.1-mini"]  # names people use


def make_project(root: Path, url: str, panelists: int, questions: int = 1, settings: str = "",
                 limits: str = "", models: list[str] | None = None) -> Path:
    """A project with one panel `bench` of `panelists` members on the fake server (model names `openai/pN`,
    or `models` in turn)."""
    (root / "content" / "questions").mkdir(parents=True, exist_ok=True)
    (root / "discussions").mkdir(exist_ok=True)
    names = [models[i % len(models)] if models else f"openai/p{i}" for i in range(panelists)]
    members = "\n".join(
        f"        - {{id: p{i}, model: {name}, api_base: '{url}', api_key_env: BENCH_KEY}}"
        for i, name in enumerate(names))
    extra = settings or "{retryBaseDelay: 0.01}"
    # The fake server is on this machine, where one request at a time is the default: it takes many.
    limits = "{" + ", ".join(x for x in (limits.strip("{} "), f"'{url}': 1000") if x) + "}"
    text = f"panels:\n  bench:\n    members:\n{members}\n    settings: {extra}\nlimits: {limits}\n"
    (root / "discussions" / "panels.yaml").write_text(text)
    for n in range(questions):
        (root / "content" / "questions" / f"q{n:03d}.md").write_text(QUESTION.format(n=n))
    return root
