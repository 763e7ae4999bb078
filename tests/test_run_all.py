"""`discuss run --all`: every open discussion, filtered, sharded, within provider limits."""

import pytest

from conftest import QUESTION, fake_panel
from discuss.store import discussions as store
from fakeserver import FakeLLM


def questions(project, count: int, tags=lambda n: "power") -> list[str]:
    slugs = []
    for n in range(count):
        slug = f"q{n:02d}"
        text = QUESTION.replace("slug: swarm-power", f"slug: {slug}").replace("tags: [power]", f"tags: [{tags(n)}]")
        (project.content / "questions" / f"{slug}.md").write_text(text)
        slugs.append(slug)
    return slugs


def concluded(project) -> set[str]:
    out = set()
    for path in (project.content / "questions").glob("*.md"):
        d = store.load(path.with_suffix(""))
        if d and d.concluded:
            out.add(path.stem)
    return out


def test_all_runs_every_open_discussion_and_skips_concluded_ones(project, fake):
    project.write_panels(fake_panel(fake.url))
    questions(project, 3)
    assert project.cli("run", "swarm-power", "--panel", "fake", "--auto").exit_code == 0
    before = len(fake.requests)
    result = project.cli("run", "--all", "--panel", "fake", "--concurrency", "2")
    assert result.exit_code == 0, result.output
    assert "3 of 3 discussion(s) ran to their end" in result.stdout
    assert concluded(project) == {"swarm-power", "q00", "q01", "q02"}
    assert len(fake.requests) - before == 3 * 7  # the concluded one made no call


def test_run_all_says_how_each_discussion_ended_as_json(project, fake):
    import json

    project.write_panels(fake_panel(fake.url, settings="{retryBaseDelay: 0.0, attempts: 1}"))
    questions(project, 2)
    fake.fail_always("gamma")  # every discussion goes on without gamma, and ends
    priced = json.loads(project.cli("run", "--all", "--panel", "fake", "--estimate", "--json").stdout)
    assert sorted(d["slug"] for d in priced["discussions"]) == ["q00", "q01", "swarm-power"]
    assert priced["total"]["calls"] == sum(d["calls"] for d in priced["discussions"]) > 0 and fake.requests == []
    result = project.cli("run", "--all", "--panel", "fake", "--json", "-q")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert sorted(d["name"] for d in data["discussions"]) == ["q00", "q01", "swarm-power"]
    assert {d["outcome"] for d in data["discussions"]} == {"finished"} and data["notStarted"] == []
    assert all(d["detail"].startswith("concluded") for d in data["discussions"])
    alone = project.cli("run", "swarm-power", "--json")
    assert alone.exit_code == 2 and "--json goes with --all" in alone.stderr


def test_tags_and_globs_choose_questions(project, fake):
    project.write_panels(fake_panel(fake.url))
    questions(project, 4, tags=lambda n: "odd" if n % 2 else "even")
    assert project.cli("run", "--all", "--panel", "fake", "--tag", "odd").exit_code == 0
    assert concluded(project) == {"q01", "q03"}
    assert project.cli("run", "--all", "--panel", "fake", "--glob", "questions/q0[02].md").exit_code == 0
    assert concluded(project) == {"q00", "q01", "q02", "q03"}


def test_shards_split_the_work_without_overlap(project, fake):
    project.write_panels(fake_panel(fake.url))
    slugs = set(questions(project, 5)) | {"swarm-power"}
    assert project.cli("run", "--all", "--panel", "fake", "--shard", "1/2").exit_code == 0
    first = concluded(project)
    assert project.cli("run", "--all", "--panel", "fake", "--shard", "2/2").exit_code == 0
    second = concluded(project) - first
    assert first and second and not first & second and first | second == slugs
    assert len(first) == 3


def test_provider_limit_caps_requests_in_flight(project):
    with FakeLLM(latency=0.05) as server:
        project.write_panels(fake_panel(server.url))
        path = project.root / "discussions" / "panels.yaml"
        path.write_text(path.read_text().replace("limits:\n", "limits:\n  openai: 2\n"))
        questions(project, 3)
        result = project.cli("run", "--all", "--panel", "fake", "--concurrency", "4")
        assert result.exit_code == 0, result.output
        assert server.peak == 2  # 4 discussions of 3 panelists would have made up to 12


@pytest.mark.parametrize("args, message", [
    (["run", "--all", "--shard", "3/2"], "i must be from 1 to n"),
    (["run", "--all", "--shard", "half"], "write it as i/n"),
    (["run", "--all", "swarm-power"], "give no QUESTION"),
    (["run"], "give a QUESTION"),
])
def test_bad_all_options(project, args, message):
    before = project.snapshot()
    result = project.cli(*args)
    assert result.exit_code == 2 and message in result.output
    assert project.snapshot() == before


@pytest.mark.parametrize("limits,peak", [("", 1), ("limits:\n  '{url}': 3\n", 3), ("limits:\n  openai: 2\n", 1)])
def test_a_server_on_this_machine_takes_one_request_at_a_time_unless_told(project, limits, peak):
    """In a plain `run` too: a local model server has one slot; a second request would cut a stream."""
    with FakeLLM(latency=0.1) as server:
        text = "panels:\n" + fake_panel(server.url) + limits.format(url=server.url)
        (project.root / "discussions" / "panels.yaml").write_text(text)
        result = project.cli("run", "swarm-power", "--panel", "fake", "--rounds", "1")
        assert result.exit_code == 0, result.output
        assert server.peak == peak


def test_run_all_starts_only_discussion_questions_unless_told(project):
    for n, kind in enumerate(("engineering-decision", "simulation", "discussion")):
        path = project.content / "questions" / f"typed-{n}.md"
        path.write_text(project.question.read_text().replace("slug: swarm-power", f"slug: typed-{n}")
                        .replace("tags: [power]", f"tags: [power]\nquestionType: {kind}"))
    result = project.cli("run", "--all", "--panel", "offline", "--estimate")
    assert result.exit_code == 0, result.output
    assert "typed-2" in result.stdout and "swarm-power" in result.stdout
    assert "typed-0" not in result.stdout and "typed-1" not in result.stdout
    every = project.cli("run", "--all", "--panel", "offline", "--estimate", "--any-type")
    assert "typed-0" in every.stdout and "typed-1" in every.stdout


def test_run_all_goes_on_past_a_discussion_that_cannot_start_and_says_so_at_the_end(project):
    broken = project.content / "questions" / "broken.md"
    broken.write_text(project.question.read_text().replace("slug: swarm-power", "slug: broken")
                      .replace("rq-9-1", "rq-9-2").replace("title:", "sources: [missing-notes.md]\ntitle:", 1))
    result = project.cli("run", "--all", "--panel", "offline", "--max-rounds", "1")
    assert result.exit_code == 1, result.output
    assert "cannot start broken:" in result.stderr and "missing-notes.md" in result.stderr
    assert "1 of 1 discussion(s) ran to their end" in result.stdout
    assert "1 could not start (broken)" in result.stderr
    assert store.load(project.folder).concluded and not (broken.with_suffix("")).exists()
    priced = project.cli("run", "--all", "--estimate", "--panel", "offline")
    assert priced.exit_code == 2 and "1 could not start (broken)" in priced.stderr  # priced the rest first


def test_run_all_says_which_wait_for_a_person_and_counts_only_those_that_ended(project, fake):
    from test_people import PERSON

    project.write_panels(fake_panel(fake.url, ids=("alpha", "beta")).replace("      settings:",
                                                                             PERSON + "      settings:"))
    result = project.cli("run", "--all", "--panel", "fake")
    assert result.exit_code == 3, result.output
    assert "0 of 1 discussion(s) ran to their end; 1 wait for a person (swarm-power)" in result.stdout
