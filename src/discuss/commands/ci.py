"""A GitHub Actions workflow that runs every open discussion on many machines: pure, text in, text out.

N jobs each run `discuss run --all --shard i/N` (a stride over the questions
in slug order, so shards never share a question) with the panel's keys from
repository secrets, and hand their new files on as a patch. One job then
applies every patch, builds the site, and opens a pull request with the new
rounds (or pushes them to a branch), after `discuss verify` held what it
commits against the commit it started from: a pull request the job opens
with the default token starts no other workflow, so the gate runs here.
Actions are pinned by commit digest, their release in a comment; keys reach
the runs as environment variables, never echoed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

from .. import DISTRIBUTION
from ..errors import InputError
from ..providers import key_names
from ..store import yamlwrite
from ..store.files import write_atomic
from ..store.layout import Layout
from ..store.panels import load_panels

WORKFLOW = ".github/workflows/discuss.yml"
# Each action by the commit its release tag named when pinned (a tag can be moved; a digest cannot).
PINS = {
    "actions/checkout": ("11bd71901bbe5b1630ceea73d27597364c9af683", "v4.2.2"),
    "actions/setup-python": ("a26af69be951a213d495a4c3e4e4022e16d87065", "v5.6.0"),
    "actions/upload-artifact": ("ea165f8d65b6e75b540449e92b4886f43607fa02", "v4.6.2"),
    "actions/download-artifact": ("d3f86a106a0bac45b974a628896c90dbdf5c8093", "v4.3.0"),
    "peter-evans/create-pull-request": ("271a8d0340265f705b14b6d32b9829c1cb33d45e", "v7.0.8"),
}
CHECKOUT, SETUP_PYTHON, UPLOAD, DOWNLOAD, CREATE_PR = (f"{name}@{sha}" for name, (sha, _) in PINS.items())


def _dump(data: Mapping[str, object]) -> str:
    """The workflow as YAML, each pinned action's release beside its digest."""
    text = yamlwrite.dump(data)
    for name, (sha, version) in PINS.items():
        text = re.sub(rf"(uses: {re.escape(name)}@{sha})$", rf"\1  # {version}", text, flags=re.M)
    return text


def _setup(install: str) -> list[dict[str, object]]:
    # No token left in .git/config: the site is built from this checkout, and a page linked to that file
    # would publish it. The one step that pushes is handed the token itself.
    return [{"uses": CHECKOUT, "with": {"persist-credentials": False}},
            {"uses": SETUP_PYTHON, "with": {"python-version": "3.11"}},
            {"name": "Install discuss", "run": install}]


def shard_job(shards: int, secrets: list[str], install: str, content: str = "content") -> dict[str, object]:
    run = ("discuss run --all --shard \"${{ matrix.shard }}/" + str(shards) + "\" -q || status=$?\n"
           f"git add -A {_quoted(content)}\n"
           "git diff --cached --binary > \"shard-${{ matrix.shard }}.patch\"\n"
           "exit \"${status:-0}\"\n")
    return {
        "name": "Run shard ${{ matrix.shard }} of " + str(shards),
        "runs-on": "ubuntu-latest",
        "permissions": {"contents": "read"},
        "timeout-minutes": 300,
        "strategy": {"fail-fast": False, "matrix": {"shard": list(range(1, shards + 1))}},
        "env": {name: "${{ secrets." + name + " }}" for name in secrets},
        "steps": [*_setup(install),
                  {"name": "Run this shard's open discussions", "run": run},
                  {"name": "Hand on the new files", "if": "always()", "uses": UPLOAD,
                   "with": {"name": "shard-${{ matrix.shard }}", "path": "shard-${{ matrix.shard }}.patch",
                            "if-no-files-found": "ignore"}}],
    }


def gather_job(install: str, branch: str | None, content: str = "content") -> dict[str, object]:
    apply = ("for patch in shards/*.patch; do\n"
             "  if [ -s \"$patch\" ]; then git apply --index \"$patch\"; fi\n"
             "done\n")
    steps = [*_setup(install),
             {"name": "Collect the shards' files", "uses": DOWNLOAD,
              "with": {"pattern": "shard-*", "path": "shards", "merge-multiple": True}},
             {"name": "Apply them", "run": apply},
             # What is committed below is held to the commit it started from: the pull request this job opens
             # with the default token starts no workflow of its own, so the gate runs here.
             {"name": "Verify the new rounds before they are committed", "run": "discuss verify --base HEAD"},
             {"name": "Build the site", "run": "mkdocs build"},
             {"uses": UPLOAD, "with": {"name": "site", "path": "site"}}]
    if branch:
        push = ("git config user.name \"discuss\"\n"
                "git config user.email \"discuss@users.noreply.github.com\"\n"
                "git commit -m \"New rounds from discuss\" || exit 0\n"
                "git push --force \"https://x-access-token:${GH_TOKEN}@github.com/${GITHUB_REPOSITORY}.git\" "
                f"\"HEAD:{check_branch(branch)}\"\n")  # a plain name, quoted
        steps.append({"name": f"Push the new rounds to {branch}", "run": push,
                      "env": {"GH_TOKEN": "${{ github.token }}"}})
    else:
        steps.append({"name": "Open a pull request with the new rounds", "uses": CREATE_PR,
                      "with": {"branch": "discuss/new-rounds", "title": "New rounds from discuss",
                               "add-paths": f"{content}/**",
                               "commit-message": "New rounds from discuss",
                               "body": "Rounds, votes and conclusions written by `discuss run --all`."}})
    return {"name": "Gather the shards and build the site", "needs": "run", "if": "always()",
            "runs-on": "ubuntu-latest", "permissions": {"contents": "write", "pull-requests": "write"},
            "steps": steps}


def _quoted(path: str) -> str:
    """A project path for a shell line: single-quoted (layout paths hold no quote; refused if one does)."""
    if "'" in path:
        raise ValueError(f"the content folder {path!r} holds a quote")
    return f"'{path}'"


BRANCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")


def check_branch(branch: str) -> str:
    """A branch name as git takes it, with nothing a shell would read as code; ValueError otherwise."""
    if not BRANCH.fullmatch(branch) or ".." in branch or "//" in branch or branch.endswith((".lock", "/", ".")):
        raise ValueError(f"--branch {branch!r} is not a plain branch name (letters, digits, '.', '_', '-', '/')")
    return branch


def release_line(version: str) -> str:
    return f"pip install '{DISTRIBUTION}=={version}'"


def install_line(direct_url: str | None, version: str) -> str | None:
    """How a runner installs the discuss that is running here: from the same git commit, or the same
    release; None where it came from a folder on this machine (a runner cannot reach it).

    `direct_url` is the installed distribution's direct_url.json (PEP 610), None when it came from an index.
    """
    if direct_url is None:
        return release_line(version)
    import json

    try:
        origin = json.loads(direct_url)
    except ValueError:
        return None
    vcs = origin.get("vcs_info") if isinstance(origin, dict) else None
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and isinstance(origin.get("url"), str):
        commit = vcs.get("commit_id") or vcs.get("requested_revision") or ""
        return f"pip install '{DISTRIBUTION} @ git+{origin['url']}" + (f"@{commit}'" if commit else "'")
    return None


def workflow(shards: int, secrets: list[str], install: str,
             branch: str | None = None, main: str = "main", content: str = "content") -> str:
    """The workflow file's text for `shards` machines; `secrets` the key variables the panels read; `main` the
    branch whose pushes start it (the repository's own); `content` the content folder (the layout's)."""
    if shards < 1:
        raise ValueError("shards must be at least 1")
    content = content.strip("/")
    data = {
        "name": "discuss",
        "on": {"workflow_dispatch": None, "push": {"branches": [check_branch(main)], "paths": [f"{content}/**"]}},
        "permissions": {},  # each job asks for what it needs
        "concurrency": {"group": "discuss", "cancel-in-progress": False},
        "jobs": {"run": shard_job(shards, secrets, install, content), "gather": gather_job(install, branch, content)},
    }
    return "# Written by `discuss ci init`; the documentation's \"Many questions\" page explains it.\n" + _dump(data)


def secrets_of(panels: Path) -> list[str]:
    """Every variable the project's panels read a key from: the repository secrets a runner needs."""
    found = load_panels(panels) if panels.is_file() else {}
    return key_names([m for panel, _ in found.values() for m in panel.everyone])


VERIFY_WORKFLOW = ".github/workflows/discuss-verify.yml"


def verify_workflow(install: str, paths: list[str] | None = None) -> str:
    """The pull-request gate: `discuss verify --base` against the pull request's base, failing it on any finding,
    with the findings in the job's summary. Read-only, no secrets: a pull request's files are untrusted. `paths`:
    what starts it, every path the record spans (`Layout.record_paths`: folders end in '/')."""
    watched = [f"{p}**" if p.endswith("/") else p for p in paths or ["content/"]]
    run = ("status=0\n"
           "discuss verify --base \"$BASE_SHA\" > verify.txt 2>&1 || status=$?\n"
           "{ echo '## discuss verify'; echo; echo '```text'; tr -d '`' < verify.txt; echo '```'; } "
           ">> \"$GITHUB_STEP_SUMMARY\"\n"
           "cat verify.txt\n"
           "exit \"$status\"\n")
    data = {
        "name": "discuss verify",
        "on": {"pull_request": {"paths": watched}},
        "permissions": {},
        "jobs": {"verify": {
            "name": "Recompute every outcome and check no recorded round changed",
            "runs-on": "ubuntu-latest",
            "permissions": {"contents": "read"},
            "timeout-minutes": 30,
            "steps": [{"uses": CHECKOUT, "with": {"persist-credentials": False, "fetch-depth": 0}},
                      {"uses": SETUP_PYTHON, "with": {"python-version": "3.11"}},
                      {"name": "Install discuss", "run": install},
                      {"name": "Verify against the pull request's base", "run": run,
                       "env": {"BASE_SHA": "${{ github.event.pull_request.base.sha }}"}}],
        }},
    }
    return "# Written by `discuss ci init`: fails a pull request that rewrites a recorded round.\n" + _dump(data)



def init(layout: Layout, shards: int, installing: Callable[[], str], branch: str | None, current: str,
         force: bool = False) -> tuple[list[Path], list[str]]:
    """`ci init`: the run workflow and the verify gate written into the project (refused where one is there,
    unless `force`); the files written, and the repository secrets the runs need. `installing` gives the
    runners' install command, asked only once the files may be written."""
    target, gate = layout.root / WORKFLOW, layout.root / VERIFY_WORKFLOW
    for path in (target, gate):
        if path.exists() and not force:
            raise InputError(f"{path} exists; --force replaces it")
    install = installing()
    secrets = secrets_of(layout.panels)
    try:
        text = workflow(shards, secrets, install, branch, current, layout.content.relative_to(layout.root).as_posix())
    except ValueError as exc:  # a branch a shell would read as code
        raise InputError(str(exc)) from None
    write_atomic(target, text)
    write_atomic(gate, verify_workflow(install, layout.record_paths()))
    return [target, gate], secrets
