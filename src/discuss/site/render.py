"""HTML for the site: question sections, the index and the leaderboard.

Model text is untrusted. It is rendered from Markdown and then cleaned by
nh3 (a maintained sanitiser): scripts, event handlers, `javascript:` links,
iframes, forms, images and inline styles are removed and the text stays.
Every other string goes through jinja2's autoescaping.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib.resources import files as package_files
from typing import Any

import markdown as md
import nh3
from jinja2 import ChoiceLoader, Environment, FunctionLoader, PackageLoader
from markupsafe import Markup, escape

from ..archive import integrity
from ..archive.evaluation import diversity
from ..archive.experiments import lines
from ..archive.leaderboard import match_standings, participation, standings
from ..archive.report import budget_line, inconsistent, reply_marks
from ..domain import Discussion, Usage
from ..protocols import get_protocol
from ..protocols.base import Protocol
from ..protocols.stats import agreement_label, citations, discussion_stats, leader
from ..rules import signatures
from ..store.sources import origins, recorded_texts
from ..text.clean import visible
from ..text.naming import slugify
from ..text.outcomes import describe
from . import analysis, charts, evals
from .cited import cited
from .collect import Entry
from .diff import word_diff
from .outcomes import outcome_view, precedent_href

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "ins", "kbd", "li", "ol", "p", "pre", "q", "s",
    "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th",
    "thead", "tr", "u", "ul",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "abbr": {"title"}}


HEADING = re.compile(r"<(/?)h([1-6])>")
# One converter, reset between texts: building one per text cost most of a build.
_MARKDOWN = md.Markdown(extensions=["fenced_code", "tables", "sane_lists"])


def safe_markdown(text: str) -> Markup:
    """Model-written Markdown as HTML that cannot run anything.

    Its headings are demoted three levels so a reply's '## Position' never
    competes with the page's own sections.
    """
    html = _MARKDOWN.reset().convert(text or "")
    clean = nh3.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES,
                      url_schemes={"http", "https", "mailto"}, link_rel="noopener noreferrer nofollow")
    clean = HEADING.sub(lambda m: f"<{m.group(1)}h{min(int(m.group(2)) + 3, 6)}>", clean)
    return Markup(clean)


def answer(text: str, view: dict[str, Any], prefix: str = "") -> Markup:
    """An answer as its page shows it: safe Markdown, its citations linked to the sources or marked in place."""
    html = safe_markdown(text)
    if "source_texts" not in view:
        return html

    titles = {label: " - ".join(x for x in (o.get("title"), o.get("url")) if x) or label
              for label, o in view["origins"].items()}
    return cited(html, text, view["source_texts"], titles, prefix)


def web_address(url: object) -> str:
    """A recorded address a page may link to: an http(s) one as it is, anything else no link at all."""
    text = str(url)
    return text if text.lower().startswith(("https://", "http://")) and text.isprintable() else "#"


def isolated(name: object) -> Markup:
    """A name people or a recorded file gave, shown in its own direction: right-to-left letters or a stray
    direction mark in it never reorder the text around it."""
    # Joined, not Markup.format: its formatter is Python's own and took 1% of a site build.
    return Markup(f"<bdi>{escape(name)}</bdi>") if name else Markup("")


def safe_inline(text: str) -> Markup:
    """Like safe_markdown, for one list item: without the wrapping paragraph."""
    html = str(safe_markdown(text))
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return Markup(html)


PLAIN_PARTIAL = "discuss.protocols:site.html.j2"


def partial_of(protocol: Any) -> str:
    """The site partial of a protocol: the one its presentation names, else `site.html.j2` in its own
    package (found as its prompts are), else the plain one."""
    import sys
    from pathlib import Path

    if protocol.presentation.partial:
        return str(protocol.presentation.partial)
    module = sys.modules[type(protocol).__module__]
    folder = Path(module.__file__ or ".").parent
    if (folder / "site.html.j2").is_file():
        package = module.__name__ if (module.__file__ or "").endswith("__init__.py") else module.__package__
        return f"{package}:site.html.j2"
    return PLAIN_PARTIAL


def _package_template(name: str) -> str | None:
    """A protocol's partial, named "package:file"."""
    package, _, resource = name.partition(":")
    if not resource:
        return None
    try:
        return (package_files(package) / resource).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return None


def when(stamp: str | None) -> str:
    """A recorded time in words: `24 November 2026, 03:15 UTC` (a date alone for a date); as it is if not ISO."""
    import datetime as dt

    if not stamp:
        return "-"
    try:
        at = dt.datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return str(stamp)
    at = at.astimezone(dt.UTC) if at.tzinfo else at
    day = f"{at.day} {at:%B %Y}"
    return day if len(str(stamp)) <= 10 else f"{day}, {at:%H:%M} UTC"


def keyed(items: Any, *names: str) -> dict[tuple, Any]:
    """Items by the values of their attributes `names`, the first of each (a vote matrix's cells by voter and
    author): one look-up a cell, not a pass over every vote."""
    out: dict[tuple, Any] = {}
    for item in items:
        out.setdefault(tuple(getattr(item, name) for name in names), item)
    return out


def _env() -> Environment:
    loader = ChoiceLoader([PackageLoader("discuss", "site/templates"), FunctionLoader(_package_template)])
    # Every value a template writes passes `visible`: no title, name or reply reorders the page unseen.
    env = Environment(loader=loader, autoescape=True, trim_blocks=True, lstrip_blocks=True,
                      finalize=lambda v: (Markup(visible(v)) if isinstance(v, Markup) else visible(v))
                      if isinstance(v, str) else v)
    env.filters["markdown"] = safe_markdown
    env.filters["inline"] = safe_inline
    env.filters["score"] = lambda v: "-" if v is None else f"{v:g}"
    env.filters["fraction"] = lambda v: "-" if v is None else f"{v:.2f}"  # agreement, 0..1: two places say it
    env.filters["pct"] = lambda v: "-" if v is None else f"{v:g}%"
    env.filters["money"] = lambda v: "-" if v is None else f"${v:.4f}"
    env.filters["anchor"] = slugify
    env.filters["bdi"] = isolated
    env.filters["when"] = when
    env.filters["keyed"] = keyed
    env.globals["describe"] = describe
    env.globals["budget_line"] = budget_line
    env.globals["reply_marks"] = reply_marks
    env.globals["answer"] = answer
    env.filters["address"] = web_address
    env.filters["frozen_name"] = lambda path: "/".join(p for p in str(path).split("/") if p not in ("..", "."))
    env.globals["bracket"] = lambda rounds, names: Markup(charts.bracket(rounds, names))

    env.globals["outcome_of"] = outcome_view  # a resolved question's outcome, first on its page
    env.filters["precedent_href"] = precedent_href
    return env


ENV = _env()


def _round_view(d: Discussion, r, protocol: Protocol) -> dict:
    fig = protocol.figures.of_round(r)
    scores = {s.target: s for s in fig.scores}
    order = sorted(r.replies, key=lambda pid: (pid != fig.winner, -(scores[pid].weighted if pid in scores else 0)))
    changes = _changes(d, r)
    return {
        "round": r,
        "figures": fig,
        "replies": [(r.replies[pid], scores.get(pid), changes.get(pid)) for pid in order],
    }


def _changes(d: Discussion, r) -> dict[str, tuple[int, float, Markup]]:
    """For each answer, what its author changed since its answer of the round before (same role)."""
    if r.number < 2:
        return {}
    before = {(x.model_id, x.role): x.text for x in d.rounds[r.number - 2].replies.values()}
    out = {}
    for key, reply in r.replies.items():
        old = before.get((reply.model_id, reply.role))
        if old is not None:
            out[key] = (r.number - 1, *word_diff(old, reply.text))
    return out


def participants(d: Discussion) -> list[tuple[Any, str]]:
    """Members, and the referees that wrote something here, each with its part."""
    wrote = {reply.model_id for r in d.rounds for reply in r.replies.values()}
    wrote |= {d.conclusion.generated_by} if d.conclusion else set()
    parts = {p.id: role for role, p in (("judge", d.panel.judge), ("synthesizer", d.panel.synthesizer),
                                         ("chairman", d.panel.chairman)) if p is not None}
    return [(m, ", ".join(x for x in ("member" if m.id in d.panel.ids else "", parts.get(m.id, "")) if x))
            for m in d.panel.everyone if m.id in d.panel.ids or m.id in wrote]


def discussion_view(d: Discussion) -> dict:
    stats = discussion_stats(d)
    top = leader(d)
    names = {m.id: m.name for m in d.panel.everyone}  # referees too: every byline uses display names
    protocol = get_protocol(d.protocol)
    done = [(r, protocol.figures.of_round(r)) for r in d.rounds if r.complete]
    score_chart = charts.line_chart(
        {names.get(pid, pid): [(r.number, s.weighted) for r, fig in done for s in fig.scores if s.target == pid]
         for pid in d.panel.ids},
        "Weighted score per round", top=max([s.weighted for _, fig in done for s in fig.scores] or [0]),
        y_title="weighted score",
    ) if done else ""
    agreement = [(r.number, r.agreement) for r, _ in done if r.agreement is not None]
    title = "Vote agreement per round" if protocol.figures.has_winners else "Agreement of the answers per round"
    agreement_chart = charts.line_chart({"agreement": agreement}, title, top=1.0, y_title="agreement") if agreement else ""
    return {
        "champion": protocol.result_of(d),
        "champion_text": next((r.replies[c].text for r in d.rounds if (c := protocol.result_of(d)) in r.replies), ""),
        "has_winners": protocol.figures.has_winners,
        "partial": partial_of(protocol),
        "last_agreement": agreement[-1][1] if agreement else None,
        "agreement_label": agreement_label(d),
        "conclusion_title": protocol.presentation.conclusion_title,
        "audit": protocol.presentation.audit(d),
        "named": signatures.lines(signatures.named_in(d), names),
        "participants": participants(d),
        "options": {m.id: m.settings_line for m in d.panel.everyone},
        "why_author": protocol.presentation.why_author(d),
        "bias": protocol.figures.bias([d]),
        "citations": citations(d),
        "diversity": diversity(d.panel),
        "inconsistent": inconsistent(d),
        "people": {m.id for m in d.panel.everyone if m.human},
        "d": d, "stats": stats, "names": names, "leader": top,
        "leader_wins": stats["roundWinners"].get(top, 0) if top else 0,
        "rounds": [_round_view(d, r, protocol) for r in d.rounds],
        "score_chart": Markup(score_chart), "agreement_chart": Markup(agreement_chart),
    }


def view_of(entry: Entry) -> dict[str, Any] | None:
    """What the templates show of the entry's discussion (figures, charts, names), made once a page."""
    if entry.discussion is None:
        return None
    view = discussion_view(entry.discussion)
    view["quotes"] = quote_checks(entry, view)
    if entry.findings:  # every check `discuss verify` runs, the chain's among them, where collect made them
        view["inconsistent"] = entry.findings
    return view


def unfound_quotes(entries: list[Entry]) -> dict[str, int]:
    """Each panelist's quotes, over the archive, that are not in the source they cite."""
    counts: dict[str, int] = {}
    for e in entries:
        for x in (e, *e.parts):
            for _, pid, _, _ in quote_checks(x)["missing"]:
                counts[pid] = counts.get(pid, 0) + 1
    return counts


def quote_checks(entry: Entry, view: dict[str, Any] | None = None) -> dict[str, Any]:
    """Per source label, the quotes attributed to it that were found and those that were not; and the
    labels cited that name no source. With `view`, what the answers' citations are checked against, too."""
    d = entry.discussion
    if d is None or not d.sources:
        return {"by": {}, "missing": [], "unknown": []}
    texts = recorded_texts(entry.question.path, d.sources)
    labels = {str(s.get("label")) for s in d.sources}
    if view is not None:  # for the answers' citations, marked in place
        view["source_texts"] = {label: texts.get(label, "") for label in labels}
        view["origins"] = origins(entry.question.path, d.sources)
    rows = integrity.citations(d, texts, labels)
    by: dict[str, dict[str, int]] = {}
    missing, unknown = [], []
    for row in rows:
        for x in row["quotes"]:
            counts = by.setdefault(x["source"], {"found": 0, "missing": 0})
            counts["found" if x["found"] else "missing"] += 1
            if not x["found"]:
                missing.append((row["round"], row["panelist"], x["source"], x["text"]))
        unknown += [(row["round"], row["panelist"], label) for label in row["unknown"]]
    return {"by": by, "missing": missing, "unknown": unknown}


def question_section(entry: Entry, verdict_first: bool = False, view: dict[str, Any] | None = None) -> str:
    """The discussion of a question page; its conclusion too unless the page shows it first."""
    return ENV.get_template("question.html.j2").render(entry=entry, view=view or view_of(entry),
                                                       verdict_first=verdict_first, experiment=experiment_lines(entry))


def experiment_lines(entry: Entry) -> list[str]:
    """The bias experiments (`discuss audit`) run on the discussion's rounds, as `show` words them."""
    if entry.discussion is None or entry.error:
        return []

    return [line.removeprefix("- ") for line in lines(entry.question.folder, entry.discussion)]


def verdict_section(entry: Entry, view: dict[str, Any] | None = None) -> str:
    """What a discussion came to, for the top of its page; empty until it has a conclusion."""
    d = entry.discussion
    if d is None or (d.conclusion is None and not (d.concluded and get_protocol(d.protocol).result_of(d))):
        return ""
    return ENV.get_template("verdict.html.j2").render(entry=entry, view=view or view_of(entry))


TABLE = re.compile(r"<table[^>]*>.*?</table>", re.S)


def labelled(html: str) -> str:
    """Every body cell of the page's tables given its column's heading (`data-label`), so a phone can
    show each row as a card of labelled values. For the pages we write whole: index, leaderboard,
    analysis (their cells' text is escaped, so no `<td` comes from a title)."""
    def table(found: re.Match[str]) -> str:
        head, sep, body = found.group(0).partition("</thead>")
        heads = [re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", head, re.S)]
        if not sep or not heads:
            return found.group(0)

        def row(tr: re.Match[str]) -> str:
            names = iter(heads)
            return re.sub(r"<td(?=[\s>])", lambda _: f'<td data-label="{Markup.escape(next(names, ""))}"', tr.group(0))

        return head + sep + re.sub(r"<tr[^>]*>.*?</tr>", row, body, flags=re.S)

    return TABLE.sub(table, html)


def index_page(entries: list[Entry], href: Callable[[str], str]) -> str:
    """All questions, the latest started first; `href` turns a question's source path into a link."""
    # Newest first; questions never started last, in the order of their pages (the sort keeps it).
    rows = sorted((index_row(e, href(e.src_uri)) for e in entries), key=lambda r: r["started"], reverse=True)
    return labelled(ENV.get_template("index.html.j2").render(
        rows=rows, protocols=sorted({r["protocol"] for r in rows if r["protocol"]}),
        statuses=sorted({r["status"] for r in rows})))


def home_section(entries: list[Entry], href: Callable[[str], str], index_href: str, latest: int = 5) -> str:
    """What the archive holds, its latest discussions and the questions still waiting."""
    from collections import Counter

    rows = [index_row(e, href(e.src_uri)) for e in entries]
    started = sorted((r for r in rows if r["d"]), key=lambda r: r["started"], reverse=True)
    total = Usage()
    for r in started:
        total.add(r["d"].usage)
    return ENV.get_template("home.html.j2").render(
        # Follow-ups are discussions of their own, as the Analysis page and the export count them.
        questions=len(rows), discussions=len(started) + sum(1 for r in started for p in r["entry"].parts if p.discussion),
        tokens=total.total_tokens, cost=total.cost,
        by_status=sorted(Counter(r["status"] for r in started).items()),
        by_protocol=sorted(Counter(r["protocol"] for r in started).items()),
        latest=started[:latest], waiting=[r for r in rows if not r["d"] and not r["entry"].error],
        index_href=index_href)


def gist(markdown: str, limit: int = 160) -> str:
    """The first sentence of a conclusion as plain text, cut at a word within `limit` characters."""
    text = " ".join(re.sub(r"[*_`#>]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", markdown).split())
    first = re.match(r"(.+?[.!?])(\s|$)", text)
    text = first.group(1) if first else text
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def index_row(e: Entry, href: str) -> dict[str, Any]:
    """One question of the index, with the values its columns sort and filter by."""
    d = e.discussion
    top = (get_protocol(d.protocol).result_of(d) or leader(d)) if d else None
    names = {m.id: m.name for m in d.panel.everyone} if d else {}
    return {"entry": e, "d": d, "href": href, "protocol": d.protocol if d else "",
            "status": "unreadable" if e.error else d.status if d else "not started",
            "started": d.started_at if d else "", "rounds": sum(r.complete for r in d.rounds) if d else 0,
            "leader": names.get(top, top) if top else None, "cost": d.usage.cost if d else None,
            "outcome": gist(d.conclusion.summary) if d and d.conclusion else "", "unsound": e.unsound}


def leaderboard_page(discussions: list[Discussion], unfound: dict[str, int] | None = None) -> str:
    """One table per kind of figure; the vote table and bias report count vote rounds only."""
    voted = [d for d in discussions if get_protocol(d.protocol).figures.has_winners]
    table = standings(voted)
    kinds = sorted({d.protocol for d in voted})
    reports = [get_protocol(name).figures.bias([d for d in voted if d.protocol == name]) for name in kinds]
    chart = charts.bar_chart([(s.name, s.win_rate or 0) for s in table], "Win rate (of the rounds each took part in)",
                             samples=[s.rounds for s in table]) if table else ""
    return labelled(ENV.get_template("leaderboard.html.j2").render(
        table=table, chart=Markup(chart), bias=next((b for b in reports if b is not None), None),
        matches=match_standings(discussions),
        people=participation(discussions), unfound=unfound or {}))


def analysis_page(entries: list[Entry], href: Callable[[str], str], files: list[str]) -> str:
    """The archive's figures (trials left out), each question's trial stability, and the study's files."""
    own = [x.discussion for e in entries for x in (e, *e.parts) if x.discussion]
    return labelled(ENV.get_template("analysis.html.j2").render(
        f=analysis.figures(own), trials=analysis.trial_rows(entries), files=files, href=href))


def eval_page(name: str, report: dict[str, Any], href: Callable[[str], str] | None = None,
              repository: str | None = None) -> str:
    """An eval's report as a page: the accuracy chart first, then each table, its items linked to their records
    (in `repository`, where the site names one), its tables (`href`) and its provenance."""
    return labelled(ENV.get_template("eval.html.j2").render(e=evals.view(name, report, repository), href=href))


def evals_index(reports: dict[str, dict[str, Any]], href: Callable[[str], str]) -> str:
    """The evals of the project, each with its arms' accuracy, linking to its page."""
    rows = [(evals.view(name, report), href(f"{evals.FOLDER}/{name}.md")) for name, report in sorted(reports.items())]
    return labelled(ENV.get_template("evals.html.j2").render(rows=rows))
