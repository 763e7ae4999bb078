"""Prompt caching: how much of a vote discussion's prompts repeat, and what caching saves at list prices.

A 5-round vote of 3 panelists that never conclude early, with answers of
`--words` words and a background of `--background` words, run against the
fake server twice: as an OpenAI model (whose provider caches any repeated
prefix of 1,024 tokens or more by itself, in steps of 128) and as an
Anthropic model (which caches only what is marked: here the system prompt
and the question with its background). Tokens are counted with cl100k.
Prints, per provider, the share of prompt tokens that repeat the start of
an earlier prompt of the run (a provider's cache serves the whole account),
the share a cache would serve, and the prompt tokens' cost with and without
caching at litellm's list prices (cache writes at Anthropic's 1.25x).
Usage: python scripts/bench_cache.py [--words 600] [--background 1500]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from typer.testing import CliRunner

from benchkit import DEFAULT, Action, FakeLLM
from discuss.text.tokens import encoding

ROUNDS, PANELISTS = 5, 3
MODELS = {"openai": ("openai/gpt-4o", "gpt-4o"),
          "anthropic": ("openrouter/anthropic/claude-sonnet-4.5", "claude-sonnet-4-5")}


def text_of(content) -> str:
    return "".join(b.get("text", "") for b in content) if isinstance(content, list) else content or ""


def marked_of(messages: list[dict]) -> str:
    """The prompt's start up to its last cache mark (Anthropic caches that prefix)."""
    out, marked = "", ""
    for m in messages:
        for block in m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}]:
            out += block.get("text", "")
            if block.get("cache_control"):
                marked = out
        out += "\x00"
    return marked


def run(kind: str, words: int, background: int) -> list[dict]:
    from discuss.cli.app import app

    model = MODELS[kind][0]
    answer = "## Position\n\n" + " ".join(f"point{i % 97}" for i in range(words)) + "\n"
    with FakeLLM(termination="CONTINUE") as fake, tempfile.TemporaryDirectory() as tmp:
        for i in range(PANELISTS):
            fake.script(f"p{i}", *[Action(text=answer), DEFAULT] * ROUNDS)
        root = Path(tmp)
        (root / "content" / "questions").mkdir(parents=True)
        (root / "discussions").mkdir()
        members = "".join(f"      - {{id: p{i}, model: {model}, api_base: '{fake.url}', api_key_env: BENCH_KEY}}\n"
                          for i in range(PANELISTS))
        (root / "discussions" / "panels.yaml").write_text(
            f"panels:\n  bench:\n    members:\n{members}    settings: {{retryBaseDelay: 0.01, maxRounds: {ROUNDS}}}\n"
            f"limits: {{'{fake.url}': 1000}}\n")
        body = " ".join(f"fact{i % 211}" for i in range(background))
        (root / "content" / "questions" / "q.md").write_text(f"---\ntitle: Which power first?\nslug: q\n---\n\n{body}\n")
        result = CliRunner().invoke(app, ["--root", str(root), "run", "q", "--panel", "bench", "--auto", "-q"])
        assert result.exit_code == 0, result.output
        return list(fake.requests)


def figures(kind: str, requests: list[dict]) -> dict:
    import litellm

    enc = encoding()
    assert enc is not None, "cl100k is needed to count"
    price = litellm.model_cost[MODELS[kind][1]]
    earlier: list[str] = []  # a provider's cache is the account's: any earlier prompt of the model counts
    prompt = repeated = served = written = 0
    for r in requests:
        messages = r["body"]["messages"]
        text = "\x00".join(text_of(m["content"]) for m in messages)
        shared = max((len(os.path.commonprefix([text, e])) for e in earlier), default=0)
        tokens = len(enc.encode(text, disallowed_special=()))
        same = len(enc.encode(text[:shared], disallowed_special=())) if shared else 0
        prompt, repeated = prompt + tokens, repeated + same
        if kind == "openai":
            served += same // 128 * 128 if same >= 1024 else 0
        else:
            mark = marked_of(messages)
            mark_tokens = len(enc.encode(mark, disallowed_special=())) if mark else 0
            if mark and any(e.startswith(mark) for e in earlier) and mark_tokens >= 1024:
                served += mark_tokens
            elif mark_tokens >= 1024:
                written += mark_tokens
        earlier.append(text)
    plain = prompt * price["input_cost_per_token"]
    cached = ((prompt - served - written) * price["input_cost_per_token"]
              + served * price.get("cache_read_input_token_cost", price["input_cost_per_token"])
              + written * price.get("cache_creation_input_token_cost", price["input_cost_per_token"]))
    return {"calls": len(requests), "prompt": prompt, "repeated": repeated / prompt, "served": served / prompt,
            "plain": plain, "cached": cached}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=600)
    parser.add_argument("--background", type=int, default=1500)
    args = parser.parse_args()
    os.environ.setdefault("BENCH_KEY", "bench")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for kind in MODELS:
        f = figures(kind, run(kind, args.words, args.background))
        print(f"{kind} ({MODELS[kind][1]}): {f['calls']} calls, {f['prompt']} prompt tokens; "
              f"{f['repeated']:.1%} repeat the start of an earlier prompt, {f['served']:.1%} served by the "
              f"cache; prompt cost ${f['plain']:.4f} without caching, ${f['cached']:.4f} with "
              f"({f['cached'] / f['plain']:.2f} of it)")


if __name__ == "__main__":
    main()
