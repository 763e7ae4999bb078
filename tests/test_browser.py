"""Model text full of attacks, built into the site and opened in headless Chromium.

Nothing may run: no payload may change the title or the DOM, no link may
keep a `javascript:` URL, and the surrounding text must still be readable.
Set DISCUSS_REQUIRE_BROWSER=1 (CI does) to fail instead of skipping when
Chromium is missing.
"""

import functools
import http.server
import os
import re
import shutil
import subprocess
import threading
from html.parser import HTMLParser
from pathlib import Path

import pytest

from discuss.domain import Failure, MinorityPosition
from discuss.protocols.vote.record import Abstention, ballot_box
from discuss.store import discussions as store
from sitekit import build, first_discussion, question

MARK = "document.body.setAttribute('data-pwned','{}')"
PAYLOADS = [
    "<script>document.title='PWNED'; " + MARK.format("script") + "</script>",
    '<img src=x onerror="' + MARK.format("img") + '">',
    '<svg onload="' + MARK.format("svg") + '"></svg>',
    '<details open ontoggle="' + MARK.format("toggle") + '">toggle</details>',
    '<iframe src="javascript:parent.' + MARK.format("iframe") + '"></iframe>',
    '<iframe srcdoc="<script>parent.' + MARK.format("srcdoc") + '</script>"></iframe>',
    '<form action="javascript:void(0)"><input autofocus onfocus="' + MARK.format("focus") + '"></form>',
    '<a href="javascript:' + MARK.format("link") + '">raw link</a>',
    "[markdown link](javascript:" + MARK.format("mdlink") + ")",
    "![image](javascript:" + MARK.format("mdimg") + ")",
    '<object data="javascript:' + MARK.format("object") + '"></object><embed src="x.swf">',
    '<meta http-equiv="refresh" content="0;url=javascript:' + MARK.format("meta") + '">',
    "<style>body { display: none !important }</style>",
    '<div style="position:fixed;inset:0;background:red;z-index:9999">overlay</div>',
    '<base href="javascript:' + MARK.format("base") + '//">',
    '<math><mi xlink:href="javascript:' + MARK.format("math") + '">math</mi></math>',
    '"><script>' + MARK.format("attr") + "</script>",
    "`<script>" + MARK.format("code") + "</script>` in a code span",
]
READABLE = "The answer is forty-two"


class Elements(HTMLParser):
    """Every element and its attributes, as the browser left them."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, attrs))


def hostile(text_id: str) -> str:
    return f"{READABLE} ({text_id}).\n\n" + "\n\n".join(PAYLOADS) + "\n"


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.fixture
def browser():
    exe = chromium()
    if exe is None:
        if os.environ.get("DISCUSS_REQUIRE_BROWSER"):
            pytest.fail("Chromium is required (DISCUSS_REQUIRE_BROWSER) but not installed")
        pytest.skip("Chromium is not installed (Debian package chromium)")
    return exe


def dump_dom(exe: str, url: str, profile) -> str:
    done = subprocess.run(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--virtual-time-budget=4000", "--dump-dom", url],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def hostile_site(root):
    from discuss.store.files import write_atomic
    from sitekit import MKDOCS

    write_atomic(root / "mkdocs.yml", MKDOCS)
    d = first_discussion()
    for r in d.rounds:
        for pid, reply in r.replies.items():
            reply.text = hostile(f"reply {pid} {r.number}")
        for v in ballot_box(r).votes:
            v.reasoning = hostile("vote")
        for t in ballot_box(r).termination_votes:
            t.reasoning = hostile("termination")
    ballot_box(d.rounds[0]).abstentions = [Abstention("a", hostile("abstention"))]
    d.rounds[0].failures = [Failure("vote", "a", hostile("failure"))]
    c = d.conclusion
    c.summary = hostile("summary")
    c.key_points = [hostile("key point")]
    c.minority_positions = [MinorityPosition(hostile("minority"), "<b onmouseover=x>Ann</b>", hostile("why"))]
    path = question(root, "first", "Hostile question?")
    store.save(d, path.with_suffix(""))
    return build(root)


def test_no_payload_runs_and_the_text_stays_readable(tmp_path, browser):
    site = hostile_site(tmp_path / "project")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/questions/first/"
        dom = dump_dom(browser, url, tmp_path / "profile")
    finally:
        server.shutdown()
    assert "data-pwned" not in dom.split("<body", 1)[1].split(">", 1)[0]
    assert not re.search(r"data-pwned=", dom)
    title = re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
    assert "PWNED" not in title and "Hostile question?" in title
    # The verdict at the top of the page and the discussion below it: every section the plugin wrote.
    section = "".join(part.split("</section>")[0] for part in dom.split('<section class="discuss')[1:])
    elements = Elements()
    elements.feed(section)
    tags = {tag for tag, _ in elements.found}
    assert not tags & {"script", "iframe", "form", "object", "embed", "style", "meta", "base", "img", "input", "math"}
    for tag, attrs in elements.found:
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)  # no event handler
            assert name != "style", tag
            assert not (value or "").strip().lower().startswith("javascript:"), (tag, name, value)
    # the words around the payloads are all there
    for where in ("reply a 1", "reply b 2", "vote", "termination", "summary", "key point", "minority",
                  "abstention", "failure"):
        assert f"{READABLE} ({where})" in section, where
    assert "raw link" in section and "markdown link" in section


def test_the_index_sorts_and_filters_from_a_link(tmp_path, browser):
    from sitekit import sample_site

    site = build(sample_site(tmp_path / "project"))
    url = (site / "discussions" / "index.html").as_uri()  # opened from disk, no server
    dom = dump_dom(browser, url + "?sort=rounds&order=desc", tmp_path / "profile")
    titles = re.findall(r'<tr data-protocol="[^"]*" data-status="[^"]*"[^>]*>\s*<td[^>]*><a [^>]*>([^<]+)</a>', dom)
    assert titles == ["First question?", "Second question?", "Third question?"]  # 2, 1, 0 rounds
    assert 'aria-sort="descending"' in dom
    dom = dump_dom(browser, url + "?status=active", tmp_path / "profile2")
    shown = re.findall(r'<tr data-protocol="[^"]*" data-status="([^"]*)"(?! hidden)>', dom)
    assert shown == ["active"] and dom.count(" hidden=") >= 2


def test_a_page_can_be_photographed_from_disk(tmp_path, browser):
    """The README's screenshot is made this way (scripts/screenshot.sh) from the demo site."""
    from sitekit import sample_site

    site = build(sample_site(tmp_path / "project"))
    shot = tmp_path / "page.png"
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,1000",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000", f"--screenshot={shot}",
         (site / "questions" / "first" / "index.html").as_uri()],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


# The demo's own site configuration (theme features, palette, offline plugin) over the sample archive.
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def demo_site(tmp_path):
    from sitekit import sample_site

    root = sample_site(tmp_path / "project")
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO / "site_config", root / "site_config")
    return build(root)


@pytest.fixture
def page(browser, tmp_path):
    from cdp import Browser

    session = Browser(browser, tmp_path / "cdp-profile")
    yield session
    session.close()


def test_every_page_opens_from_disk_without_errors_or_network(demo_site, page):
    pages = sorted(set(demo_site.rglob("*.html")) - {demo_site / "404.html"})  # 404 is for servers only
    assert len(pages) >= 6
    for path in pages:
        page.open(path.as_uri())
        page.wait_for("document.querySelector('.md-content') !== null")
    assert page.errors == []
    assert [url for url in page.requests if not url.startswith(("file:", "data:", "about:"))] == []


def test_from_disk_the_navigation_and_search_work(demo_site, page):
    page.open((demo_site / "index.html").as_uri())
    page.eval("document.querySelector('a.md-nav__link[href$=\"discussions.html\"]').click()")
    page.wait_for("location.pathname.endsWith('/discussions.html') && !!document.querySelector('.discuss-index')")
    # Typed again each second until results show: a query typed before the search index is loaded (a busy
    # machine) is dropped.
    page.wait_for("""(() => { if (document.querySelectorAll('.md-search-result__item').length > 0) return true;
        if (Date.now() - (window.typedAt || 0) < 1000) return false;
        window.typedAt = Date.now();
        const box = document.querySelector('.md-search__input');
        box.value = 'Second'; box.dispatchEvent(new Event('input', {bubbles: true})); box.focus(); return false; })()""")
    assert page.errors == []


def test_the_answers_of_a_round_switch_tabs_and_go_side_by_side(demo_site, page):
    url = (demo_site / "questions" / "first.html").as_uri()
    visible = """Array.from(document.querySelectorAll('#round-{} .discuss-reply'))
        .filter(e => !e.hidden).map(e => e.querySelector('strong').textContent)"""
    page.open(url + "#round-1-answer-2")  # a link to an answer opens its tab
    assert page.eval(visible.format(1)) == ["Bob"] and page.eval(visible.format(2)) == ["Bob"]
    page.eval("location.hash = 'round-1-answer-1'")
    page.wait_for("!document.getElementById('round-1-answer-1').hidden")
    assert page.eval(visible.format(2)) == ["Bob"]  # the winner's tab is open
    page.eval("document.querySelectorAll('#round-2 [role=tab]')[1].click()")
    assert page.eval(visible.format(2)) == ["Ann"]
    assert page.eval("document.querySelectorAll('#round-2 [role=tab]')[1].getAttribute('aria-selected')") == "true"
    page.eval("document.querySelector('#round-2 .discuss-layout').click()")
    assert page.eval(visible.format(2)) == ["Bob", "Ann"]
    assert page.errors == []


def test_the_dark_mode_toggle_switches_and_is_remembered(demo_site, page):
    page.send("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": "light"}])
    page.open((demo_site / "index.html").as_uri())
    scheme = "document.body.getAttribute('data-md-color-scheme')"
    assert page.eval(scheme) == "default"
    page.eval("document.querySelector('form[data-md-component=palette] label:not([hidden])').click()")
    page.wait_for(f"{scheme} === 'slate'")
    page.open((demo_site / "leaderboard.html").as_uri())
    assert page.eval(scheme) == "slate"
    assert page.errors == []


def test_served_over_http_navigation_is_instant(demo_site, page):
    root = demo_site.parent
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(demo_site)))
    server.RequestHandlerClass.log_message = lambda *a: None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    # The theme swaps in only pages listed in the sitemap, which names them under site_url.
    config = (root / "mkdocs.yml").read_text()
    (root / "mkdocs.yml").write_text(re.sub(r"(?m)^site_url: .*$", f"site_url: {url}", config))
    build(root)
    try:
        page.open(url + "index.html")
        link = "document.querySelector('a.md-nav__link[href$=\"leaderboard.html\"]')"
        page.wait_for(f"!!{link}")
        # The theme intercepts clicks once it has read the sitemap; a click before that is a plain page load
        # (a loaded machine is slow to fetch it).
        page.wait_for("performance.getEntriesByType('resource').some(e => e.name.endsWith('/sitemap.xml') "
                      "&& e.responseEnd > 0)")
        page.eval("window.keptAcrossPages = 1")
        page.eval(f"{link}.click()")
        page.wait_for("location.pathname.endsWith('/leaderboard.html') && !!document.querySelector('.discuss-leaderboard')")
        assert page.eval("window.keptAcrossPages") == 1  # the page was swapped in, not reloaded
    finally:
        server.shutdown()
    assert page.errors == []


def test_hostile_metadata_and_damaged_questions_run_nothing_on_any_page(tmp_path, browser):
    """A pull request's data files, not model text: a status, front matter, a question made unreadable."""
    from sitekit import sample_site

    root = sample_site(tmp_path / "project")
    payload = '"><img src=x onerror="' + MARK.format("meta") + '">'
    index = root / "content" / "questions" / "first" / "discussion.yaml"
    index.write_text(index.read_text().replace("status: concluded", "status: '" + payload.replace("'", "''") + "'"))
    second = root / "content" / "questions" / "second.md"
    second.write_text(second.read_text().replace("slug: second\n", "slug: second\nstakes: critical\n"
                                                 "description: '" + payload.replace("'", "''") + "'\n"))
    reply = root / "content" / "questions" / "second" / "round-1" / "b.md"
    reply.write_text(reply.read_text() + "\n" + payload + "\n")
    site = build(root)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for uri in ("", "questions/first/", "questions/second/", "questions/second/round-1/b/"):
            dom = dump_dom(browser, f"http://127.0.0.1:{server.server_address[1]}/{uri}", tmp_path / "p")
            assert not re.search(r"data-pwned=", dom), uri  # as text (the error quoting it) it is harmless
    finally:
        server.shutdown()


TABLES = """Array.from(document.querySelectorAll('.md-content table')).map(t => {
    const box = t.parentElement.getBoundingClientRect(), r = t.getBoundingClientRect();
    return [t.scrollWidth - t.clientWidth, Math.round(r.right - box.right), Math.round(r.left - box.left)]; })"""


@pytest.mark.parametrize("width", [390, 1280, 1920])
def test_no_table_of_the_archive_is_wider_than_its_page(demo_site, page, width):
    page.send("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=width < 600)
    for name in ("discussions.html", "leaderboard.html", "analysis.html"):
        page.open((demo_site / name).as_uri())
        found = page.eval(TABLES)
        assert found and all(hidden <= 1 and right <= 1 and left >= -1 for hidden, right, left in found), (name, found)
    page.open((demo_site / "discussions.html").as_uri())
    shown = page.eval("""Array.from(document.querySelector('.discuss-index tbody tr').cells)
        .filter(c => getComputedStyle(c).display !== 'none').map(c => c.dataset.label)""")
    if width < 600:  # a card: the question, its status, rounds, leader and outcome, each labelled
        assert shown == ["Question", "Status", "Rounds", "Leader", "Termination"]
    else:
        assert len(shown) == 9
        titles = page.eval("Array.from(document.querySelectorAll('.discuss-index tbody td:first-child'))"
                           ".map(c => Math.round(c.getBoundingClientRect().height / parseFloat(getComputedStyle(c)"
                           ".lineHeight)))")
        assert max(titles) <= 3  # a title on a line or two (and the cell's padding)
    assert page.errors == []


def test_the_dark_scheme_dims_the_vote_matrix_and_badges(demo_site, page):
    page.send("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": "dark"}])
    page.open((demo_site / "questions" / "first.html").as_uri())
    assert page.eval("document.body.getAttribute('data-md-color-scheme')") == "slate"
    colours = page.eval("""Array.from(document.querySelectorAll(
        '.discuss-matrix td.discuss-vote-approve, .discuss-matrix td.discuss-vote-reject, .discuss-badge-concluded'))
        .map(e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color])""")

    def lightness(css: str) -> float:
        r, g, b = (int(x) for x in re.findall(r"\d+", css)[:3])
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255

    assert colours and all(lightness(bg) < 0.3 < lightness(fg) for bg, fg in colours), colours


def test_a_follow_up_is_announced_with_its_link_on_the_first_screen(project, page):
    for args in (["run", "swarm-power", "--panel", "offline", "--auto", "-q"],
                 ["follow-up", "swarm-power", "What if the bus fails for an hour?", "--auto", "-q"]):
        assert project.cli(*args).exit_code == 0
    shutil.copy(REPO / "mkdocs.yml", project.root / "mkdocs.yml")
    shutil.copytree(REPO / "site_config", project.root / "site_config")
    site = build(project.root)
    page.send("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)
    page.open((site / "questions" / "swarm-power.html").as_uri())
    page.wait_for("document.querySelector('[data-followed-up] a') !== null")
    link = page.eval("(() => { const a = document.querySelector('[data-followed-up] a');"
                     " return [a.getAttribute('href'), a.getBoundingClientRect().bottom]; })()")
    assert link[0] == "#part-2-discussion-summary" and 0 < link[1] < 900, link
    page.eval("document.querySelector('[data-followed-up] a').click()")
    page.wait_for("document.getElementById('part-2-discussion-summary').getBoundingClientRect().top < 450")
    assert page.errors == []
