"""The theme's HTML of each page, reused by the next build of the same process (`mkdocs serve`).

After one edit `mkdocs serve` renders every page's template again, and the
theme draws the whole navigation into each: most of a rebuild once the
plugin's own parts are kept. `Reuse` wraps the page templates a build asks
for, so that a page whose template would be given exactly what it was given
last time gets the HTML it made then.

It promises the HTML a render would make now. The key holds everything the
template is given (the page: its text, address, title, table of contents,
metadata, neighbours; the navigation with every page's title, address and
metadata; the settings; every context value another plugin adds); and
nothing is reused once a template the last build loaded is found otherwise
now (edited, removed, or another file in front of it). A value it cannot
write down exactly (an object of unknown kind, a template function from an
unknown library, a template that reads the build's time) renders the page
as usual.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import types
import zlib
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

# HTML by output file: the key it was rendered under and the HTML, compressed (a page holds the whole
# navigation, and a served site of a thousand pages would otherwise keep hundreds of megabytes).
_KEPT: dict[str, tuple[str, bytes]] = {}
# Each template name a build of this process asked its loader for since the templates last changed, with the
# digest of the source it got (None: none found; TIMED, which no digest equals: a source that shows the build's
# time, so the next build finds it changed and keeps nothing).
_LOADED: dict[str, str | None] = {}
TIMED = "build_date_utc"
_BYTES = [0]  # the compressed size of what _KEPT holds
LIMIT = 256 * 2**20  # compressed bytes kept at most; pages past it are rendered every time
TRUSTED = ("builtins", "_operator", "operator", "jinja2", "markupsafe", "gettext", "mkdocs", "material", "discuss")
FORMAT = "1"


class Unknown(Exception):
    """A value whose exact writing-down is not known: its page is rendered, not reused."""


def _plain(value: Any) -> Any:
    """`value` as JSON can hold it, for the kinds MkDocs' settings and pages hold."""
    from mkdocs.config.base import Config
    from mkdocs.plugins import BasePlugin
    from mkdocs.theme import Theme

    if isinstance(value, Theme):
        return {"name": value.name, "dirs": value.dirs, "items": dict(value.items())}
    if isinstance(value, types.ModuleType):  # a hook of mkdocs.yml: whatever it does follows from its text
        try:
            with open(str(value.__file__), "rb") as f:
                text = hashlib.sha256(f.read()).hexdigest()
        except (OSError, TypeError):
            raise Unknown(value.__name__) from None
        return {"hook": value.__name__, "file": value.__file__, "text": text}
    if isinstance(value, BasePlugin):
        return {"plugin": f"{type(value).__module__}.{type(value).__qualname__}", "config": dict(value.config)}
    if isinstance(value, (Config, Mapping)):
        return dict(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
    if type(value).__qualname__ == "Locale" and type(value).__module__.startswith(("mkdocs.", "babel.")):
        return {"locale": str(value)}  # the theme's language
    if type(value).__name__ == "ExtraScriptValue":  # mkdocs' entry of extra_javascript with its attributes
        return {"script": str(value), "attributes": vars(value)}
    raise Unknown(type(value).__qualname__)


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=_plain, ensure_ascii=False)


def _toc(items: Any) -> list:
    return [[x.id, x.title, x.url, x.level, _toc(x.children)] for x in items or ()]


def _page(page: Any) -> list:
    """What a template can read of the page it renders (its place in the navigation is the navigation's)."""
    near = [[x.title, x.url] if x is not None else None for x in (page.previous_page, page.next_page)]
    return [page.file.src_uri, page.file.dest_uri, page.url, page.abs_url, page.canonical_url, page.edit_url,
            str(page.title), page.is_homepage, page.update_date, page.meta, _toc(page.toc), near,
            page.markdown, page.content]


def _nav(items: Any) -> list:
    out = []
    for x in items:
        if x.is_section:
            out.append(["section", x.title, _nav(x.children)])
        elif x.is_page:
            out.append(["page", str(x.title), x.url, x.file.src_uri, x.meta, x.is_index])
        else:
            out.append(["link", x.title, x.url])
    return out


class Reuse:
    """One build's reuse: made in the plugin's `on_env`, after every other plugin changed the environment."""

    def __init__(self, env: Any, config: Any) -> None:
        self.common: str | None = None
        self.memo: dict[int, tuple[Any, str]] = {}  # navigation and page lists, each written once a build
        if not _same_templates(env):  # what was kept may show the template as it was
            forget()
        _record(env)
        try:
            self.common = _digest(_dump([FORMAT, _functions(env), config]))
        except (Unknown, TypeError, ValueError):  # ValueError: a circular value; TypeError: keys of mixed kinds
            return
        real = env.get_template

        def get_template(name: Any, parent: Any = None, globals: Any = None) -> Any:
            template = real(name, parent, globals)
            if parent is None and not getattr(template, "_reused_by_discuss", False):
                template.render = partial(self.render, template.render, str(name))
                template._reused_by_discuss = True
            return template

        env.get_template = get_template

    def render(self, real: Callable[..., str], name: str, *args: Any, **kwargs: Any) -> str:
        context = dict(*args, **kwargs)
        page = context.get("page")
        key = self.key(name, context) if self.common is not None else None
        if key is None:
            return real(context)
        where = page.file.dest_uri if page is not None else f"template {name}"  # 404.html draws the navigation too
        kept = _KEPT.pop(where, None)
        _BYTES[0] -= len(kept[1]) if kept else 0
        if kept is not None and kept[0] == key:
            html = zlib.decompress(kept[1]).decode("utf-8", "surrogatepass")
        else:
            html = real(context)
            kept = (key, zlib.compress(html.encode("utf-8", "surrogatepass"), 1))
        if _BYTES[0] + len(kept[1]) <= LIMIT:
            _KEPT[where] = kept
            _BYTES[0] += len(kept[1])
        return html

    def key(self, name: str, context: dict[str, Any]) -> str | None:
        """The digest of everything `context` gives the template `name`; None where a value is unknown."""
        held: list[Any] = [self.common, name]
        try:
            for field in sorted(context):
                value = context[field]
                if field == TIMED:
                    continue  # no template loaded reads it (else nothing is kept from one build to the next)
                if field in ("nav", "pages", "config"):
                    held.append([field, self._once(value, field)])
                elif field == "page":
                    held.append(["page", _page(value) if value is not None else None])
                else:
                    held.append([field, value])
            return _digest(_dump(held))
        except (Unknown, TypeError, ValueError):
            return None

    def _once(self, value: Any, field: str) -> str:
        known = self.memo.get(id(value))
        if known is None or known[0] is not value:
            if field == "nav":
                written = _dump([_nav(value.items), value.homepage.url if value.homepage else None])
            elif field == "pages":  # the sitemap's list
                written = _dump([[f.src_uri, f.dest_uri, f.url] + ([] if f.page is None else [
                    str(f.page.title), f.page.update_date, f.page.canonical_url, f.page.abs_url, f.page.meta])
                    for f in value])
            else:
                written = _dump(value)
            known = self.memo[id(value)] = (value, _digest(written))
        return known[1]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _functions(env: Any) -> list:
    """The template functions, filters and tests by name and origin; any from an unknown library is Unknown
    (it may give another answer each time)."""
    out = []
    for kind in ("globals", "filters", "tests"):
        for name, value in sorted(getattr(env, kind).items()):
            origin = getattr(value, "__module__", None) or type(value).__module__
            if callable(value) and str(origin).split(".")[0] not in TRUSTED:
                raise Unknown(f"{kind} {name} from {origin}")
            held = getattr(value, "__qualname__", None) or (type(value).__qualname__ if callable(value) else value)
            out.append([kind, name, str(origin), held])
    return out


def _same_templates(env: Any) -> bool:
    """Whether every template the last build loaded is found now as it was then."""
    from jinja2 import TemplateNotFound

    for name, digest in _LOADED.items():
        try:
            source = env.loader.get_source(env, name)[0]
        except TemplateNotFound:
            source = None
        if (None if source is None else _digest(source)) != digest:
            return False
    return True


def _record(env: Any) -> None:
    """Note every template the environment's loader gives (a missing one too), and the source it gave."""
    from jinja2 import TemplateNotFound

    loader = env.loader
    real = loader.get_source

    def get_source(environment: Any, template: str) -> Any:
        try:
            found = real(environment, template)
        except TemplateNotFound:
            _LOADED[template] = None
            raise
        _LOADED[template] = TIMED if TIMED in found[0] else _digest(found[0])
        return found

    loader.get_source = get_source


def forget() -> None:
    """Drop the HTML this process kept: the next build renders every page, as a new process does."""
    _KEPT.clear()
    _LOADED.clear()
    _BYTES[0] = 0
