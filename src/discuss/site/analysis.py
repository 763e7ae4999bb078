"""The site's Analysis page and the study's files built with it: figures in, HTML and CSV out.

The page gives the archive's figures (discussions, rounds, votes cast,
approval, why discussions ended, tokens and cost), the stability of every
question run as repeated trials, and links to the tables `discuss export`
writes, built from the same files so the page and the data cannot drift.
Trials are counted in their own table, never among the archive's
discussions.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..archive.tables import DIVERGENT, Located, as_csv, divergent_views, tables
from ..archive.trials import report
from ..domain import Discussion
from ..protocols import get_protocol
from ..store.yamlwrite import dump
from .collect import Entry

DATA_DIR = "data"  # under the site: the study's tables


def located(entries: list[Entry], path_of) -> list[Located]:
    """Every discussion of the archive (parts and trials too) with where it lives."""
    return [Located(x.discussion, path_of(x), x.part if x.part > 1 else None, tuple(e.question.tags),
                    e.question.phase, e.question.bom_item)
            for e in entries for x in (e, *e.parts, *e.trials) if x.discussion]


def study_rows(located: list[Located]) -> dict[str, list[dict[str, Any]]]:
    """The rows of the study's files, by file name, in the order of `located`: the rows of a list of
    discussions are the rows of each, one after another."""
    return tables(located) | {DIVERGENT: divergent_views(located)}


def data_files(rows: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    """The study's files made of their rows (`study_rows`), by their path under the site, as `discuss export
    --csv` writes them."""
    found = {f"{DATA_DIR}/{name}": as_csv(table) for name, table in rows.items() if name != DIVERGENT}
    found[f"{DATA_DIR}/{DIVERGENT}"] = dump({"schema": 1, "divergentViews": rows[DIVERGENT]})
    return found


def figures(discussions: list[Discussion]) -> dict[str, Any]:
    """The archive in a few numbers: what was discussed, how long, how the votes went, what it cost."""
    rounds = [sum(r.complete for r in d.rounds) for d in discussions]
    cast = [j for d in discussions for r in d.rounds for j in get_protocol(d.protocol).figures.of_round(r).judgements
            if not j.invented]
    costs = [d.usage.cost for d in discussions if d.usage.cost is not None]
    return {
        "discussions": len(discussions),
        "concluded": sum(d.concluded for d in discussions),
        "protocols": sorted(Counter(d.protocol for d in discussions).items()),
        "rounds": sum(rounds), "meanRounds": round(sum(rounds) / len(rounds), 2) if rounds else None,
        "castVotes": len(cast),
        "approval": round(100 * sum(j.approves for j in cast) / len(cast), 1) if cast else None,
        "terminations": Counter(d.termination_reason or "(still open)" for d in discussions).most_common(),
        "tokens": sum(d.usage.prompt_tokens + d.usage.completion_tokens for d in discussions),
        "cost": round(sum(costs), 4) if costs else None,
    }


def trial_rows(entries: list[Entry]) -> list[dict[str, Any]]:
    """Per question run as repeated trials: its title, where its page is, and `discuss trials`' figures."""
    return [{"title": e.question.title, "src_uri": e.src_uri,
             **report([t.discussion for t in e.trials if t.discussion])}
            for e in entries if any(t.discussion for t in e.trials)]
