"""Site build time with the discuss plugin over a plain MkDocs build of the same Markdown.

Generates N discussions (default 200, 5 rounds, 3 panelists) in a temporary
project and builds it with the plugin. The baseline is a plain MkDocs build
(no plugin) of the same text: each question page holds its discussion's
replies and vote reasons as Markdown. (Building every reply file as a page
of its own is no fair baseline: Material's navigation makes that quadratic,
about 20 times slower than either.) Builds alternate; the ratio of the
medians is printed. Target: at most 1.5.
Usage: python scripts/bench_site.py [--questions 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from mkdocs.commands.build import build  # noqa: E402
from mkdocs.config import load_config  # noqa: E402

from discuss.domain import Panel, Panelist, Settings  # noqa: E402
from discuss.store import discussions as store  # noqa: E402
from sitekit import make_round, question  # noqa: E402

CONFIG = "site_name: bench\ndocs_dir: content\nsite_dir: {site}\ntheme:\n  name: material\n  font: false\n"
PANEL = Panel("trio", tuple(Panelist(i, f"openai/{i}", i.title()) for i in ("a", "b", "c")))
TEXT = "## Position\n\n" + "A paragraph of a reply with some *emphasis* and `code`. " * 30 + "\n\n- one\n- two\n"


def plain_page(d) -> str:
    parts = [f"---\ntitle: {d.question_title}\n---\n\nBackground.\n"]
    for r in d.rounds:
        parts.append(f"## Round {r.number}\n")
        parts += [f"### {pid}\n\n{reply.text}\n" for pid, reply in r.replies.items()]
        parts.append("| voter | target | vote | reasoning |\n| --- | --- | --- | --- |\n" + "".join(
            f"| {v.voter_id} | {v.target_id} | {v.vote} | {v.reasoning} |\n" for v in r.votes))
    return "\n".join(parts)


def generate(root: Path, count: int) -> None:
    from discuss.domain import Discussion

    for n in range(count):
        path = question(root, f"q{n:03d}", f"Question {n}?")
        rounds = []
        for r in range(1, 6):
            votes = [(v, t, "APPROVE" if (n + r + ord(t)) % 3 else "NEUTRAL", "reason " * 12)
                     for v in PANEL.ids for t in PANEL.ids]
            # Answers change from round to round, as real ones do, so the pages' word diffs have work to do.
            texts = {pid: TEXT.replace("emphasis", f"emphasis {pid}{r}", r) + f"\nRound {r} adds a point.\n"
                     for pid in PANEL.ids}
            rnd = make_round(r, r, texts, votes,
                             [(pid, "CONTINUE", "more") for pid in PANEL.ids])
            rounds.append(rnd)
        d = Discussion(f"q-{n}", f"q{n:03d}", f"Question {n}?", PANEL, Settings(), rounds=rounds)
        store.save(d, path.with_suffix(""))
        plain = root / "plain" / "questions" / path.name
        plain.parent.mkdir(parents=True, exist_ok=True)
        plain.write_text(plain_page(d))


def timed(root: Path, plugin: bool) -> float:
    text = CONFIG.format(site=root / ("site-plugin" if plugin else "site-plain"))
    if not plugin:
        text = text.replace("docs_dir: content", "docs_dir: plain")
    (root / "mkdocs.yml").write_text(text + ("plugins:\n  - discuss\n" if plugin else "plugins: []\n"))
    start = time.perf_counter()
    build(load_config(str(root / "mkdocs.yml")))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, args.questions)
        pages = len(list((root / "plain").rglob("*.md")))
        with_plugin, plain = [], []
        for _ in range(args.runs):
            with_plugin.append(timed(root, True))
            plain.append(timed(root, False))
    p, q = statistics.median(with_plugin), statistics.median(plain)
    print(f"{args.questions} discussions (5 rounds, 3 panelists), {pages} pages, {args.runs} runs each")
    print(f"with plugin {p:.2f}s, plain MkDocs {q:.2f}s: ratio {p / q:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
