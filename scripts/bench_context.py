"""Context growth: prompt tokens per answer, ballot and conclusion call of a vote discussion with long replies.

Every answer is about `--words` words; ballots never conclude, so the
discussion runs all 10 rounds. Answer prompts must level off at the context
budget (`contextTokens`, 6000 by default) instead of growing with every
round, and a ballot must stay within it whatever the panel's size (each
answer cut to an equal share). Usage:
python scripts/bench_context.py [--words 1500] [--panelists 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import tempfile
from pathlib import Path

from benchkit import DEFAULT, Action, FakeLLM, make_project
from discuss.engine.gateway import Gateway
from discuss.engine.runner import Plan, Runner, prompts_for, start
from discuss.store.panels import pick_panel
from discuss.store.questions import read_question
from discuss.text.prompting import estimate_tokens

ROUNDS = 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=1500)
    parser.add_argument("--panelists", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("BENCH_KEY", "bench")
    long_reply = "## Position\n\n" + " ".join(f"point{i % 97}" for i in range(args.words)) + "\n"
    with FakeLLM(termination="CONTINUE") as fake, tempfile.TemporaryDirectory() as tmp:
        for i in range(args.panelists):
            fake.script(f"p{i}", *[Action(text=long_reply), DEFAULT] * ROUNDS)
        root = make_project(Path(tmp), fake.url, args.panelists, settings=f"{{retryBaseDelay: 0.01, maxRounds: {ROUNDS}, "
                                                                 "convergenceRounds: 99}")
        q = read_question(root / "content" / "questions" / "q000.md")
        panel, settings = pick_panel(root / "discussions" / "panels.yaml", "bench")
        asyncio.run(Runner(Gateway(attempts=1), prompts_for(root)).run(
            q, start(q, panel, settings, "t"), Plan(auto=True)))
        per_round: dict[int, list[int]] = {}
        ballots: list[int] = []
        conclusion = 0
        for req in fake.requests:
            size = sum(estimate_tokens(m["content"]) for m in req["messages"])
            if req["task"] == "respond":
                text = req["messages"][-1]["content"]
                number = int(re.search(r"## Your task \(round (\d+)\)", text).group(1))
                per_round.setdefault(number, []).append(size)
            elif req["task"] == "vote":
                ballots.append(size)
            elif req["task"] == "conclude":
                conclusion = max(conclusion, size)
    print(f"{args.panelists} panelists, answers of ~{args.words} words, context budget "
          f"{settings.context_tokens} tokens")
    for number, sizes in sorted(per_round.items()):
        print(f"round {number:2d}: prompt tokens per answer call {max(sizes):6d}")
    sizes = [max(v) for _, v in sorted(per_round.items())]
    print(f"rounds 5-10 vary by {max(sizes[4:]) - min(sizes[4:])} tokens; largest {max(sizes)} "
          f"(budget plus the question and instructions)")
    print(f"ballot prompts: largest {max(ballots)} tokens over {len(ballots)} calls; conclusion prompt {conclusion}")


if __name__ == "__main__":
    main()
