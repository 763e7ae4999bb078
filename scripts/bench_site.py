"""Site build time with the discuss plugin over plain MkDocs builds of the same text.

Generates N discussions (5 rounds, 3 panelists, a conclusion) in a temporary
project and builds it with the plugin and the search plugin. Two baselines,
the same theme and search, no discuss plugin:
- fair: each question page holds its discussion's replies, conclusion and
  vote reasons as plain Markdown blocks (headings and paragraphs);
- tables: the same with each round's votes as a Markdown table, which
  Python-Markdown parses slowly, so the ratio against it flatters the plugin.
(Building every reply file as a page of its own is no baseline at all:
Material's navigation makes that quadratic.) Builds alternate; ratios of
the medians are printed. Target: at most 1.3 against the fair baseline.
The plugin's builds start with no kept pages (its cache folder emptied),
except the one measured "with the pages an earlier build kept".
Usage: python scripts/bench_site.py [--questions 200 1000] [--runs 3]
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
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store  # noqa: E402
from sitekit import make_round, question  # noqa: E402

CONFIG = ("site_name: bench\ndocs_dir: {docs}\nsite_dir: {site}\ntheme:\n  name: material\n  font: false\n"
          "plugins:\n  - search\n")
PANEL = Panel("trio", tuple(Panelist(i, f"openai/{i}", i.title()) for i in ("a", "b", "c")))
TEXT = "## Position\n\n" + "A paragraph of a reply with some *emphasis* and `code`. " * 30 + "\n\n- one\n- two\n"


def plain_page(d, tables: bool) -> str:
    parts = [f"---\ntitle: {d.question_title}\n---\n\nBackground.\n", "## Conclusion\n", d.conclusion.summary,
             "".join(f"- {p}\n" for p in d.conclusion.key_points)]
    for r in d.rounds:
        parts.append(f"## Round {r.number}\n")
        parts += [f"### {pid}\n\n{reply.text}\n" for pid, reply in r.replies.items()]
        if tables:
            parts.append("| voter | target | vote | reasoning |\n| --- | --- | --- | --- |\n" + "".join(
                f"| {v.voter_id} | {v.target_id} | {v.vote} | {v.reasoning} |\n" for v in ballot_box(r).votes))
        else:
            parts += [f"{v.voter_id} on {v.target_id}: **{v.vote}**. {v.reasoning}\n" for v in ballot_box(r).votes]
    return "\n".join(parts)


def generate(root: Path, count: int) -> None:
    from discuss.domain import Conclusion, Discussion

    for n in range(count):
        path = question(root, f"q{n:04d}", f"Question {n}?")
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
        d = Discussion(f"q-{n}", f"q{n:04d}", f"Question {n}?", PANEL, Settings(), rounds=rounds,
                       status="concluded")
        d.conclusion = Conclusion("The panel agrees on *most* of it. " * 10, ["one", "two"], ["open"], ["act"], [])
        store.save(d, path.with_suffix(""))
        for kind in ("fair", "tables"):
            plain = root / kind / "questions" / path.name
            plain.parent.mkdir(parents=True, exist_ok=True)
            plain.write_text(plain_page(d, kind == "tables"))


def timed(root: Path, kind: str, cold: bool = True, dirty: bool = False, kept: bool = False,
          command: str = "build") -> float:
    """One build; `cold`: as a fresh process would, without what an earlier build in this one read;
    `kept`: with the pages an earlier build kept in the cache folder (else with none);
    `dirty`: as `mkdocs serve --dirty` rebuilds, only the pages taken for modified;
    `command`: "serve" for the builds of `mkdocs serve` (which keep what the next one reuses)."""
    import shutil

    from discuss.rules import spread
    from discuss.site import plugin

    if cold:
        plugin.forget()
        spread._spread.cache_clear()
    if kind == "plugin" and not kept:
        shutil.rmtree(root / "cache", ignore_errors=True)
    text = CONFIG.format(docs="content" if kind == "plugin" else kind, site=root / f"site-{kind}")
    (root / "mkdocs.yml").write_text(text + (f"  - discuss:\n      cache_dir: {root / 'cache'}\n"
                                             if kind == "plugin" else ""))
    start = time.perf_counter()
    config = load_config(str(root / "mkdocs.yml"))
    config.plugins.on_startup(command=command, dirty=dirty)
    build(config, dirty=dirty)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, nargs="+", default=[200])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    for count in args.questions:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            generate(root, count)
            times: dict[str, list[float]] = {"plugin": [], "fair": [], "tables": [], "kept": []}
            for _ in range(args.runs):
                for kind in ("plugin", "fair", "tables"):
                    times[kind].append(timed(root, kind))
                # A new process's full build after one before it kept its pages (nothing changed since).
                times["kept"].append(timed(root, "plugin", kept=True))
            # As `mkdocs serve` does after an edit: the same process rebuilds with one reply changed.
            reply = root / "content" / "questions" / "q0000" / "round-1" / "a.md"
            rebuilds, dirty = [], []
            timed(root, "plugin", kept=True, command="serve")  # what `mkdocs serve` builds first
            for n in range(args.runs):
                reply.write_text(reply.read_text() + f"\nEdited {n}.\n")
                rebuilds.append(timed(root, "plugin", cold=False, kept=True, command="serve"))
                reply.write_text(reply.read_text() + f"\nEdited again {n}.\n")
                dirty.append(timed(root, "plugin", cold=False, dirty=True, kept=True, command="serve"))
        p, fair, tables, kept = (statistics.median(times[k]) for k in ("plugin", "fair", "tables", "kept"))
        print(f"{count} discussions (5 rounds, 3 panelists), {args.runs} runs each: with plugin {p:.2f}s, "
              f"fair baseline {fair:.2f}s, tables baseline {tables:.2f}s")
        print(f"  ratio to the fair baseline {p / fair:.2f} (target <= 1.3); to the tables baseline {p / tables:.2f}")
        print(f"  with the pages an earlier build kept (a new process, nothing changed) {kept:.2f}s: "
              f"{kept / fair:.2f} of the fair baseline")
        rebuild = statistics.median(rebuilds)
        print(f"  rebuild after editing one reply (as mkdocs serve does) {rebuild:.2f}s: {rebuild / p:.2f} of a full "
              f"build with the plugin, {rebuild / fair:.2f} of the fair baseline's")
        quick = statistics.median(dirty)
        print(f"  the same with --dirty (mkdocs serve --dirty) {quick:.2f}s: {quick / p:.2f} of a full build "
              "(target <= 0.15)")


if __name__ == "__main__":
    main()
