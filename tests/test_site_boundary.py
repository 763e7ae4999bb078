"""The site's trust boundary: a hostile pull request or a damaged tree never puts script on a page.

Each case changes what a pull request could change (a discussion.yaml, a
question's front matter, a question file renamed or made unreadable) and
builds the site: no page may carry the payload as markup, and no file of a
discussion may be published as a page of its own.
"""

import re

import pytest

from discuss.site.boundary import any_page_meta, discussion_folders, page_meta, refused_file
from sitekit import build, sample_site

PAYLOAD = '"><img src=x onerror=alert(1)>'


def every_page(site) -> str:
    return "\n".join(p.read_text() for p in sorted(site.rglob("*.html")))


def no_payload(site) -> None:
    html = every_page(site)
    assert "onerror=alert" not in html.replace("onerror=alert(1)&gt;", "")  # escaped text is fine
    assert not re.search(r"<img[^>]*onerror", html)


def test_a_status_written_into_discussion_yaml_never_reaches_the_navigation(tmp_path):
    root = sample_site(tmp_path)
    index = root / "content" / "questions" / "first" / "discussion.yaml"
    index.write_text(index.read_text().replace("status: concluded", "status: 'concluded" + PAYLOAD + "'"))
    site = build(root)
    no_payload(site)
    page = (site / "questions" / "first" / "index.html").read_text()
    assert "This discussion cannot be read" in page and "is not one of active, concluded, closed" in page
    assert str(root) not in page and "questions/first/discussion.yaml" in page  # no path of the machine
    # the question is still marked in the navigation, with a status the theme knows
    assert re.findall(r'md-status--(\w+)', page)[:1] == ["open"]


def test_front_matter_keys_that_steer_the_theme_are_not_passed_on(tmp_path, caplog):
    root = sample_site(tmp_path)
    path = root / "content" / "questions" / "first.md"
    hostile = ("template: redirect.html\nlocation: 'javascript:alert(1)'\nicon: ../../../../etc/passwd\n"
               f"description: '{PAYLOAD}'\nauthor: '{PAYLOAD}'\nsubtitle: '{PAYLOAD}'\n"
               f"status: '{PAYLOAD}'\n")
    path.write_text(path.read_text().replace("slug: first\n", "slug: first\n" + hostile)
                    .replace("tags: [power, policy]", "tags: [power, '<script>x</script>']"))
    site = build(root)
    no_payload(site)
    page = (site / "questions" / "first" / "index.html").read_text()
    assert "javascript:alert" not in page and "<script>x" not in every_page(site)
    assert 'class="discuss"' in page  # the page's own template, not the redirect
    assert "&#34;&gt;&lt;img" in page or "&quot;&gt;&lt;img" in page  # the description, as text
    assert "template" in caplog.text and "icon" in caplog.text


@pytest.mark.parametrize("damage", ["bom", "bad-value", "no-title", "renamed", "deleted"])
def test_discussion_files_are_never_pages_whatever_the_question_files_state(tmp_path, damage, caplog):
    root = sample_site(tmp_path)
    question = root / "content" / "questions" / "first.md"
    folder = question.with_suffix("")
    reply = folder / "round-1" / "a.md"
    reply.write_text(reply.read_text().replace("one two three", "one two <img src=x onerror=alert(1)>"))
    text = question.read_text()
    if damage == "bom":
        question.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    elif damage == "bad-value":
        question.write_text(text.replace("slug: first\n", "slug: first\nstakes: critical\n"))
    elif damage == "no-title":
        question.write_text(re.sub(r"title: .*\n", "", text))
    elif damage == "renamed":
        question.rename(question.with_name("moved.md"))
    else:
        question.unlink()
    site = build(root)
    no_payload(site)
    assert not list(site.rglob("round-1")) and not list(site.rglob("conclusion*"))
    if damage == "bom":  # read as the question it is
        assert "Both <strong>agree</strong>" in (site / "questions" / "first" / "index.html").read_text()
    if damage in ("renamed", "deleted"):
        assert "questions/first/ holds a discussion whose question file is missing" in caplog.text


def test_a_reply_moved_out_of_its_folder_is_not_a_page(tmp_path):
    root = sample_site(tmp_path)
    reply = root / "content" / "questions" / "first" / "round-1" / "a.md"
    (root / "content" / "stray.md").write_text(reply.read_text().replace("one two", "<img src=x onerror=alert(1)>"))
    site = build(root)
    no_payload(site)
    assert not (site / "stray").exists()


def test_discussion_folders_are_recognised_by_what_they_hold():
    uris = ["q/a.md", "q/a/round-1/x.md", "q/a/part-2/round-1/y.md", "b/discussion.yaml", "c/part-3.md",
            "guide/conclusion.md", "guide/round-table.md", "r/written.md", "r/page.md"]
    heads = {"r/written.md": b"---\nmodelId: x\ntype: discussion-response\n---\n"}
    folders, stray = discussion_folders(uris, lambda uri: heads.get(uri, b"---\ntitle: A page\n---\n"))
    assert folders == {"q/a/", "b/", "c/"}
    assert stray == {"r/written.md"}


def test_page_meta_keeps_only_what_the_theme_shows_and_escapes_it():
    meta, refused = page_meta({"title": "<b>T</b>", "template": "redirect.html", "tags": ["ok", "<x>", True],
                               "hide": ["toc", "evil"], "questionId": "rq-1-1", "status": "concluded"}, "bogus")
    assert meta == {"status": "open", "title": "&lt;b&gt;T&lt;/b&gt;", "tags": ["ok"], "hide": ["toc"]}
    assert refused == ["template", "tags (only plain words pass)"]
    other = any_page_meta({"title": "A & B", "status": "new", "author": ["list"]}, {"new": "New"})
    assert other == {"title": "A &amp; B", "status": "new"}
    assert "status" not in any_page_meta({"status": PAYLOAD}, {"new": "New"})


def test_a_page_linked_outside_the_docs_folder_is_never_published(tmp_path, caplog):
    root = sample_site(tmp_path)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0LXRva2Vu\n")
    (root / "content" / "x.md").symlink_to(root / ".git" / "config")
    (root / "content" / "questions" / "linked.md").symlink_to(root / ".git" / "config")
    site = build(root)
    published = "".join(p.read_text(errors="replace") for p in site.rglob("*") if p.is_file())
    assert "c2VjcmV0LXRva2Vu" not in published  # neither the page nor the search index
    assert "x.md links outside the docs folder: not published" in caplog.text


def test_a_page_linked_outside_is_refused_before_any_page_is_opened_to_be_sorted(tmp_path, monkeypatch):
    """The plugin reads the head of pages to tell a stray discussion file from a page: a link out (to a pipe,
    a device, a secret) is gone from the list before that."""
    from discuss.site import boundary

    root = sample_site(tmp_path)
    (root / "outside.md").write_text("---\ntitle: Outside\n---\n")
    (root / "content" / "x.md").symlink_to(root / "outside.md")
    sorted_uris: list[str] = []
    real = boundary.discussion_folders
    monkeypatch.setattr(boundary, "discussion_folders", lambda uris, head: real(
        [u for u in uris if not sorted_uris.append(u)], head))
    build(root)
    assert "index.md" in sorted_uris and "x.md" not in sorted_uris


def test_a_page_that_is_not_utf8_is_left_out_and_the_build_goes_on(tmp_path, caplog):
    root = sample_site(tmp_path)
    (root / "content" / "questions" / "broken.md").write_bytes(b"---\ntitle: Broken \xff\xfe?\n---\n\nText.\n")
    site = build(root)
    assert (site / "index.html").is_file() and (site / "questions" / "first" / "index.html").is_file()
    assert "broken.md is not UTF-8 text" in caplog.text


def test_one_builds_real_paths_are_the_systems_for_every_kind_of_link(tmp_path):
    import os

    from discuss.site.boundary import RealPaths

    (tmp_path / "docs" / "q").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_text("s")
    (tmp_path / "docs" / "q" / "plain.md").write_text("p")
    (tmp_path / "docs" / "q" / "file-link.md").symlink_to(tmp_path / "outside" / "secret.md")
    (tmp_path / "docs" / "q" / "relative-link.md").symlink_to(os.path.join("..", "..", "outside", "secret.md"))
    (tmp_path / "docs" / "folder-link").symlink_to(tmp_path / "outside")
    realpath = RealPaths()
    for path in ("docs/q/plain.md", "docs/q/file-link.md", "docs/q/relative-link.md", "docs/folder-link/secret.md",
                 "docs/q/../q/plain.md", "docs", "docs/folder-link"):
        assert realpath(tmp_path / path) == os.path.realpath(tmp_path / path), path
    for path in ("docs/q/file-link.md", "docs/folder-link/secret.md"):
        assert refused_file(tmp_path / path, tmp_path / "docs", realpath) == "links outside the docs folder"
    assert refused_file(tmp_path / "docs" / "q" / "plain.md", tmp_path / "docs", realpath) is None


def test_a_link_into_a_folder_whose_name_only_begins_like_the_docs_folder_is_outside(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs-private").mkdir()
    (tmp_path / "docs-private" / "secret.md").write_text("s")
    (tmp_path / "docs" / "page.md").symlink_to(tmp_path / "docs-private" / "secret.md")
    assert refused_file(tmp_path / "docs" / "page.md", tmp_path / "docs") == "links outside the docs folder"
    assert refused_file(tmp_path / "docs-private" / "secret.md", tmp_path / "docs") is None  # a theme's file


def test_a_name_is_isolated_and_escaped():
    from markupsafe import Markup

    from discuss.site.render import isolated

    assert isolated('<img src=x onerror="steal()">') == "<bdi>&lt;img src=x onerror=&#34;steal()&#34;&gt;</bdi>"
    assert isolated(Markup("<em>Ada</em>")) == "<bdi><em>Ada</em></bdi>"  # already safe: kept as it is
    assert isolated("") == "" and isolated(None) == ""
