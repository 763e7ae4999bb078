"""The MkDocs plugin `discuss`: a thin adapter over `collect` and `render`.

It appends the discussion to every question page, adds an index of all
discussions and a leaderboard, keeps the raw discussion files out of the
page build (they hold untrusted model text), ships its stylesheet, and
publishes every discussion as data in `discussions.json`.
"""

from __future__ import annotations

import json
import posixpath
import re
from importlib.resources import files as package_files
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files

from ..archive.export import discussion_json
from ..store.questions import PLACEHOLDER
from ..text.compiled import compiled_templates
from . import analysis, boundary, cache, dirty, evals, indexed, prerender, render, themed
from .collect import Entry, collect, steady
from .collect import forget as forget_read
from .record import track_record_page
from .searchable import searchable
from .sections import Rendered, rendered

log = get_plugin_logger(__name__)
CSS = "assets/discuss.css"
JS = "assets/discuss.js"
# Material's offline plugin fetches this shim from a CDN; a site opened from disk has no network, so ship it.
SHIM = "assets/vendor/iframe-worker-shim.js"
SHIPPED = (CSS, JS, SHIM, "assets/vendor/iframe-worker-LICENSE")
DATA = "discussions.json"
# The theme's page-status icon beside each question in the navigation: its discussion's status, or a warning
# where its record (or a follow-up's) does not hold.
STATUS_TOOLTIPS = {
    "open": "Open: not discussed yet",
    "active": "Under discussion",
    "concluded": "Concluded",
    "closed": "Closed without a conclusion",
    "unverified": "Its record does not hold: discuss verify names why",
}


# Rendered parts of a page by question page (mkdocs serve): the signature of the files they came from, the
# digest of the code and settings they were rendered with, the parts, their key in the cache.
_SECTIONS: dict[str, tuple[tuple, str, list[Rendered], str | None]] = {}


def _kept(parts: list | None, count: int) -> list[Rendered] | None:
    """Parts read from the cache, if they are what `rendered` makes for a page of `count` parts."""
    if parts is None or len(parts) != count or not all(
            isinstance(p, list) and len(p) == 4 and all(isinstance(x, str) for x in p) for p in parts):
        return None
    return [Rendered(*p) for p in parts]


H1 = re.compile(r"^\s*<h1[^>]*>.*?</h1>", re.S)


def around_title(html: str, verdict: str) -> tuple[str, str, str]:
    """Where a page's text takes what was decided: after its own title where it has one, with a heading
    before the rest when there is a verdict and a rest (then the question's own text is its background,
    said so, not run on from the conclusion)."""
    title = H1.match(html)
    head, rest = (html[:title.end()], html[title.end():]) if title else ("", html)
    named = '<h2 id="question-background">Background</h2>\n' if verdict and rest.strip() else ""
    return head, named, rest


def wide_page(title: str) -> str:
    """A page of tables: the theme's side columns hidden, so the tables have the page's width."""
    return f"---\nhide:\n  - navigation\n  - toc\n---\n\n# {title}\n"


def eval_page(title: str) -> str:
    """An eval's page (or their list): the site's navigation kept, so a reader can go on from it, and the page's
    own table of contents hidden, so its tables have the room."""
    return f"---\nhide:\n  - toc\n---\n\n# {title}\n"


def data_path(x: Entry) -> str:
    """Where a discussion lives under the docs folder: its question's folder, a part's or a trial's in it."""
    if x.trial is not None:
        return f"{x.folder_uri}trials/trial-{x.trial}"
    return x.folder_uri.rstrip("/") if x.part == 1 else f"{x.folder_uri}part-{x.part}"


class DiscussConfig(base.Config):
    enabled = c.Type(bool, default=True)
    questions_dir = c.Type(str, default="")  # under docs_dir; empty: all of it
    index_page = c.Type(str, default="discussions.md")
    index_title = c.Type(str, default="Discussions")
    leaderboard = c.Type(bool, default=True)
    leaderboard_page = c.Type(str, default="leaderboard.md")
    leaderboard_title = c.Type(str, default="Leaderboard")
    track_record = c.Type(bool, default=True)  # forecasts and decisions graded against what happened
    track_record_page = c.Type(str, default="track-record.md")
    track_record_title = c.Type(str, default="Track record")
    analysis = c.Type(bool, default=True)  # the archive's figures, repeated trials and the study's tables
    analysis_page = c.Type(str, default="analysis.md")
    analysis_title = c.Type(str, default="Analysis")
    evals = c.Type(bool, default=True)  # a page per eval of the project (evals/NAME/report.yaml), and their list
    home = c.Type(bool, default=True)  # add the archive's account to the home page
    home_page = c.Type(str, default="index.md")
    cache = c.Type(bool, default=True)  # keep rendered pages between builds: a build renders what changed
    cache_dir = c.Type(str, default="")  # where; empty: this user's cache folder (never inside the project)


class DiscussPlugin(BasePlugin[DiscussConfig]):
    def __init__(self) -> None:
        super().__init__()
        self.dirty_build = False  # `--dirty`: MkDocs rebuilds only the pages it takes for modified
        self.serving = False  # `mkdocs serve`: this process builds again after each edit
        self.stamps: dict[str, str] = {}
        self.for_search: dict[str, str] = {}  # a question page's content without what search leaves out
        self.whole = ""  # the page's content while the search plugin reads the copy made for it
        self.cache: cache.RenderCache | None = None
        self.keys: dict[str, str] = {}  # each question page's key in the cache, where made before its page
        self.helper: prerender.Helper | None = None
        self.common = ""  # what every page is rendered with: the code's digest and the settings

    def on_startup(self, *, command, dirty: bool) -> None:
        self.dirty_build = dirty
        self.serving = command == "serve"

    def on_config(self, config):
        if not self.config.enabled:
            return config
        if CSS not in config.extra_css:
            config.extra_css.append(CSS)
        if JS not in [str(x) for x in config.extra_javascript]:
            config.extra_javascript.append(JS)
        polyfills = [p for p in config.extra.get("polyfills", []) if "iframe-worker" not in p]
        config.extra["polyfills"] = polyfills + [SHIM]
        config.extra["status"] = STATUS_TOOLTIPS | dict(config.extra.get("status") or {})
        return config

    def on_files(self, files: Files, config) -> Files:
        if not self.config.enabled:
            return files
        realpath = boundary.RealPaths()
        self._refuse(files, config, realpath, read=False)  # links out first: nothing below opens one
        entries, warnings = collect(Path(config.docs_dir), self.config.questions_dir)
        for warning in warnings:
            log.warning(warning)
        self.entries: dict[str, Entry] = {e.src_uri: e for e in entries}
        # What every page is rendered with: the code (templates, protocols' packages, libraries), the settings.
        protocols = {x.discussion.protocol for e in entries for x in (e, *e.parts) if x.discussion}
        self.common = cache.code_digest(protocols) + json.dumps(dict(self.config), sort_keys=True, default=str)
        self.cache = self._cache(config, self.common)
        self._ahead(entries)
        if self.config.cache:  # the search's entries of a page whose text is unchanged are not parsed again
            indexed.remember(config.plugins)
        self.stamps = dirty.stamps(entries, self.common)
        if self.dirty_build:  # a page shows more than its own file: rebuild those whose discussion changed
            dirty.mark_changed(files, self.stamps, dirty.kept(Path(config.site_dir)))
        self._keep_out(files, config, {e.folder_uri for e in entries})
        self._refuse(files, config, realpath, read=True)  # the pages left: a discussion's files are read by collect
        pages = {self.config.index_page: wide_page(self.config.index_title)}
        if self.config.leaderboard:
            pages[self.config.leaderboard_page] = wide_page(self.config.leaderboard_title)
        if self.config.track_record:
            pages[self.config.track_record_page] = wide_page(self.config.track_record_title)
        if self.config.analysis:
            pages[self.config.analysis_page] = wide_page(self.config.analysis_title)
            study = _study(entries)
            self.data_files = [uri for uri in study if files.get_file_from_path(uri) is None]
            for uri in sorted(set(study) - set(self.data_files)):
                log.warning(f"{uri}: the docs folder has a file of that name; the study's table is not published")
            for uri in self.data_files:
                files.append(File.generated(config, uri, content=study[uri]))
        self.evals: dict[str, dict] = {}
        if self.config.evals:
            self.evals, warned = evals.reports(Path(config.docs_dir))
            for warning in warned:
                log.warning(warning)
            if self.evals:
                pages[f"{evals.FOLDER}/index.md"] = eval_page("Evaluations")
            pages |= {f"{evals.FOLDER}/{name}.md": eval_page(f"Eval: {name}") for name in self.evals}
            for name, report in self.evals.items():  # its tables beside its page, linked from it
                for table, text in report["published"]["tables"].items():
                    if files.get_file_from_path(uri := f"{evals.FOLDER}/{name}/{table}") is None:
                        files.append(File.generated(config, uri, content=text))
        for uri, content in pages.items():
            if files.get_file_from_path(uri) is None:
                files.append(File.generated(config, uri, content=content))
        shipped = package_files("discuss.site")
        for uri in SHIPPED:
            files.append(File.generated(config, uri, content=shipped.joinpath(uri).read_text(encoding="utf-8")))
        lines = [line for e in entries if (line := _as_data(e))]
        files.append(File.generated(config, DATA, content="[\n" + ",\n".join(lines) + "\n]\n" if lines else "[]\n"))
        return files

    @staticmethod
    def _refuse(files: Files, config, realpath, read: bool) -> None:
        for f in list(files):
            if f.abs_src_path and (why := boundary.refused_file(f.abs_src_path, config.docs_dir, realpath, read=read)):
                log.warning(f"{f.src_uri} {why}: not published")
                files.remove(f)

    def _cache(self, config, common: str) -> cache.RenderCache | None:
        """The pages kept by earlier builds of this site, under keys that hold `common`."""
        if not self.config.cache:
            return None
        if not self.config.cache_dir:
            folder = cache.default_folder(Path(config.docs_dir))
            return cache.RenderCache(folder, common) if folder is not None else None
        # A folder mkdocs.yml names, relative to it (whoever writes mkdocs.yml decides the whole build anyway).
        return cache.RenderCache(Path(config.config_file_path or ".").resolve().parent / self.config.cache_dir, common)

    def _ahead(self, entries: list[Entry]) -> None:
        """Start a helper rendering the question pages neither this process nor the cache holds."""
        self.keys = {}
        if self.cache is None or self.dirty_build:  # a dirty build renders only some of them
            return
        jobs = []
        for entry in entries:
            known = _SECTIONS.get(entry.src_uri)
            if known is not None and known[:2] == (entry.signature, self.common):
                continue
            key = self.keys[entry.src_uri] = self._key(entry)
            if not self.cache.has(key):
                jobs.append((key, entry))
        self.helper = prerender.start(jobs, self.cache.folder)

    def _key(self, entry: Entry) -> str:
        """The page's key in the render cache: its files' bytes, the code and the settings."""
        assert self.cache is not None
        return self.cache.key(entry.src_uri, [Path(p) for p, _, _ in entry.signature])

    def _stop_helper(self) -> None:
        if self.helper is not None:
            self.helper.stop()
            self.helper = None

    def _keep_out(self, files: Files, config, known: set[str]) -> None:
        """Model text is published only through the sanitised renderer: no discussion file is a page."""
        docs = Path(config.docs_dir)

        def head(uri: str) -> bytes:
            try:
                with open(docs / uri, "rb") as f:
                    return f.read(4096)
            except OSError:
                return b""

        found, stray = boundary.discussion_folders((f.src_uri for f in files), head)
        for folder in sorted(found - known):
            log.warning(f"{folder} holds a discussion whose question file is missing or cannot be read "
                        f"({folder.rstrip('/')}.md): not published")
        folders = tuple(found | known)
        for f in list(files):
            if f.src_uri.startswith(folders) or f.src_uri in stray:
                files.remove(f)

    @event_priority(-100)  # after every other plugin changed the templates' environment
    def on_env(self, env, config, files: Files):
        self._stop_helper()  # every page is read: what it did not render, the build has
        if self.config.enabled and self.config.cache:
            if env.bytecode_cache is None:  # the theme's templates compiled once, not on every build
                env.bytecode_cache = compiled_templates(env, "site-templates")
            if self.serving:  # the next build reuses unchanged pages
                themed.Reuse(env, config)
        return env

    @event_priority(100)  # before any other plugin (the theme's tags among them) reads the metadata
    def on_page_markdown(self, markdown: str, page, config, files: Files) -> str:
        if not self.config.enabled:
            return markdown
        entry = self.entries.get(page.file.src_uri)
        if entry is None:
            page.meta = boundary.any_page_meta(page.meta, config.extra.get("status") or {})
            return markdown
        # Every page is read before any is rendered, so the navigation shows every question's status.
        status = "unverified" if entry.unsound else entry.discussion.status if entry.discussion else "open"
        page.meta, refused = boundary.page_meta(page.meta, status)
        if refused:
            log.warning(f"{page.file.src_uri}: front matter {', '.join(refused)} not passed to the theme")
        return without_placeholder(markdown)

    def on_page_content(self, html: str, page, config, files: Files) -> str:
        if not self.config.enabled:
            return html
        uri = page.file.src_uri
        if uri in self.entries:
            shown = self._shown(self.entries[uri])
            head, named, rest = around_title(html, shown[0].verdict)
            self.for_search[uri] = "".join([searchable(head), shown[0].verdict_searched, named, searchable(rest),
                                            *(x.section_searched for x in shown)])
            return "".join([head, shown[0].verdict, named, rest, *(x.section for x in shown)])
        if self.config.home and uri == self.config.home_page:
            href = self._linker(page, files)
            return html + render.home_section(list(self.entries.values()), href, href(self.config.index_page))
        if uri == self.config.index_page:
            return html + render.index_page(list(self.entries.values()), self._linker(page, files))
        if self.config.analysis and uri == self.config.analysis_page:
            entries = list(self.entries.values())
            return html + render.analysis_page(entries, self._linker(page, files), self.data_files)
        if uri.startswith(f"{evals.FOLDER}/") and self.evals:
            name = uri.removeprefix(f"{evals.FOLDER}/").removesuffix(".md")
            if name == "index":
                return html + render.evals_index(self.evals, self._linker(page, files))
            if name in self.evals:
                return html + render.eval_page(name, self.evals[name], self._linker(page, files), config.repo_url)
        if self.config.leaderboard and uri == self.config.leaderboard_page:
            entries = list(self.entries.values())
            return html + render.leaderboard_page([e.discussion for e in entries if e.discussion],
                                                  render.unfound_quotes(entries))
        if self.config.track_record and uri == self.config.track_record_page:
            return html + track_record_page(Path(config.docs_dir) / self.config.questions_dir)
        return html

    def _shown(self, entry: Entry) -> list[Rendered]:
        """The page's parts: as this process last rendered them, as a build kept them, or rendered now."""
        known = _SECTIONS.get(entry.src_uri)
        if known is not None and known[:2] == (entry.signature, self.common):
            if self.cache is not None and known[3]:
                self.cache.asked.add(known[3])  # still this page's: kept when the build prunes
            return known[2]
        key = self.keys.pop(entry.src_uri, None) or (self._key(entry) if self.cache else None)
        shown = _kept(self.cache.get(key), 1 + len(entry.parts)) if self.cache and key else None
        if shown is None:
            shown = rendered(entry)
            # Kept only if no file changed from its reading to now: then what was shown is what the key holds.
            if self.cache and key and steady(entry.signature):
                self.cache.put(key, [list(x) for x in shown])
        _SECTIONS[entry.src_uri] = (entry.signature, self.common, shown, key)
        return shown

    @event_priority(100)  # before the search plugin reads the page
    def _lean_for_search(self, context, page, config, nav):
        if (lean := self.for_search.get(page.file.src_uri)) is not None:
            self.whole, page.content = page.content, lean
        return context

    @event_priority(-100)  # after it, before the theme renders the page
    def _whole_for_theme(self, context, page, config, nav):
        if (lean := self.for_search.pop(page.file.src_uri, None)) is not None:
            if page.content == lean:
                page.content = self.whole
            else:  # a plugin between changed the copy: its change is kept, the left-out blocks are not shown
                log.warning(f"{page.file.src_uri}: a plugin changed the page while search read it; the vote "
                            "matrices, charts and word changes are left out of it")
        return context

    on_page_context = CombinedEvent(_lean_for_search, _whole_for_theme)

    @staticmethod
    def _linker(page, files: Files):
        def href(src_uri: str) -> str:
            target = files.get_file_from_path(src_uri)
            url = target.url if target else src_uri
            link = posixpath.relpath("/" + url, "/" + posixpath.dirname("/" + page.url))
            return link + "/" if url.endswith("/") and not link.endswith("/") else link

        return href

    def on_build_error(self, error) -> None:
        self._stop_helper()

    def on_post_build(self, config) -> None:
        if self.config.enabled:
            dirty.keep(Path(config.site_dir), self.stamps)
            if self.cache is not None and not self.dirty_build:  # a dirty build asked for only some pages
                self.cache.prune()

    def on_serve(self, server, config, builder):
        # Discussion files are removed from the page list, so watch them explicitly.
        server.watch(config.docs_dir)
        return server


# What this process made of the archive from entries `collect` gave again unread (mkdocs serve): by question
# page, the entry and its lines of discussions.json, and the entry and its rows of the study's tables; the
# study's files with the entries they were made from.
_DATA: dict[str, tuple[Entry, str]] = {}
_ROWS: dict[str, tuple[Entry, dict[str, list]]] = {}
_STUDY: list[tuple[list[Entry], dict[str, str]]] = []


def _as_data(e: Entry) -> str:
    """A question's discussions (its parts and trials too) as lines of discussions.json, one discussion a line:
    readable in a diff, and written by json's C encoder (indenting takes its Python one). Each with where it
    lives and which part it is: repeated trials of one question share id and slug."""
    made = _DATA.get(e.src_uri)
    if made is None or made[0] is not e:
        found = [discussion_json(x.discussion) | {"path": data_path(x), "part": x.part, "trial": x.trial}
                 for x in (e, *e.parts, *e.trials) if x.discussion]
        made = _DATA[e.src_uri] = (e, ",\n".join(json.dumps(x, ensure_ascii=False) for x in found))
    return made[1]


def _study(entries: list[Entry]) -> dict[str, str]:
    """The study's tables of the archive, as `discuss export --csv` writes them."""
    if not _STUDY or len(_STUDY[0][0]) != len(entries) or any(a is not b for a, b in zip(_STUDY[0][0], entries)):
        rows: dict[str, list] = {}
        for e in entries:  # each question's rows made once while `collect` gives back the same entry
            made = _ROWS.get(e.src_uri)
            if made is None or made[0] is not e:
                made = _ROWS[e.src_uri] = (e, analysis.study_rows(analysis.located([e], data_path)))
            for name, found in made[1].items():
                rows.setdefault(name, []).extend(found)
        _STUDY[:] = [(list(entries), analysis.data_files(rows or analysis.study_rows([])))]
    return _STUDY[0][1]


def forget() -> None:
    """Drop what this process kept of earlier builds: the next build is made as a new process makes it."""
    _SECTIONS.clear()
    _DATA.clear()
    _STUDY.clear()
    _ROWS.clear()
    forget_read()
    indexed.forget()
    themed.forget()


def without_placeholder(markdown: str) -> str:
    """A question page's text without the scaffold's placeholder: a question nobody described shows none."""
    return "" if markdown.strip() == PLACEHOLDER else markdown
