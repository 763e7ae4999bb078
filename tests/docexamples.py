"""The shell examples of the docs, run as pasted against a copy of the demo project.

A page's `console` blocks (`$ command` lines, each followed by what it prints) and its `bash`
blocks (commands only) run in order, in one shell, in a fresh copy of the repository's demo
project, so a page may build on its own earlier examples (`cd`, files it wrote). A block right
after `<!-- not run: REASON -->` is skipped: it installs something, needs a key, or reaches the
network. Printed text is matched line by line, in order (blank lines aside): `...` stands for any text within a
line, and a line of only `...` for any number of lines. A command that is meant to fail says so
with a trailing `# exits N`.

`python scripts/doc_examples.py --update` rewrites every console block with what it printed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(r"^(?P<skip><!-- not run: (?P<why>[^>]*?) -->\n)?```(?P<lang>console|bash)\n(?P<body>.*?)^```$", re.M | re.S)
EXITS = re.compile(r"#\s*exits (\d+)\s*$")
MARK = "@@discuss-doc-example@@"
DEMO = ("content", "discussions", "sources", "site_config", "mkdocs.yml", "evals")


@dataclass
class Command:
    line: str
    expected: list[str] = field(default_factory=list)
    exits: int = 0
    printed: str = ""
    status: int = 0


@dataclass
class Block:
    lang: str
    start: int
    end: int
    skipped: str | None
    commands: list[Command]


def blocks(text: str) -> list[Block]:
    """Every console and bash block of a page, with its commands and what each should print."""
    found = []
    for match in FENCE.finditer(text):
        commands: list[Command] = []
        for line in match["body"].splitlines():
            if match["lang"] == "bash" and line.strip() and not line.lstrip().startswith("#"):
                commands.append(Command(line))
            elif line.startswith("$ "):
                commands.append(Command(line[2:]))
            elif commands:
                commands[-1].expected.append(line)
        for command in commands:
            exits = EXITS.search(command.line)
            command.exits = int(exits.group(1)) if exits else 0
        found.append(Block(match["lang"], match.start("body"), match.end("body"), match["why"], commands))
    return found


def demo_project(into: Path) -> Path:
    """A copy of the repository's demo project, as a git repository of its own: the files git tracks, so what
    a demo run left in the checkout (a discussion of its own, a site) never changes what the pages print."""
    listed = subprocess.run(["git", "ls-files", "-z", "--", *DEMO], cwd=ROOT, capture_output=True)
    tracked = [name for name in listed.stdout.decode().split("\0") if name] if listed.returncode == 0 else None
    for name in tracked if tracked is not None else DEMO:
        source = ROOT / name
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():  # not a git checkout: the folders as they are
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns(".cache", "__pycache__"))
        elif source.exists():
            shutil.copy2(source, into / name)
    git = ["git", "-c", "user.name=Docs", "-c", "user.email=docs@example.org"]
    subprocess.run(["git", "init", "-q", "--initial-branch=main"], cwd=into, check=True)
    subprocess.run([*git, "add", "."], cwd=into, check=True)
    subprocess.run([*git, "commit", "-qm", "The demo project"], cwd=into, check=True)
    return into


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN")) and not k.startswith("PYTEST")}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        EDITOR="true", NO_COLOR="1", TERM="dumb", COLUMNS="100", NO_MKDOCS_2_WARNING="1",
        GIT_AUTHOR_NAME="Docs", GIT_AUTHOR_EMAIL="docs@example.org",
        GIT_COMMITTER_NAME="Docs", GIT_COMMITTER_EMAIL="docs@example.org",
    )
    return env


def run_page(page: Path, project: Path, timeout: float = 600) -> list[Block]:
    """Run every example of a page that is not skipped, in order, in one shell; fill in what each printed."""
    found = [b for b in blocks(page.read_text(encoding="utf-8")) if b.skipped is None]
    commands = [c for b in found for c in b.commands]
    # Braces, not a subshell, so a `cd` holds for the next command; the newline ends a trailing comment.
    script = "".join(f"{{ {c.line}\n}} 2>&1\necho \"{MARK} $?\"\n" for c in commands)
    done = subprocess.run(["bash", "-c", script], cwd=project, env=environment(), capture_output=True,
                          text=True, timeout=timeout)
    parts = re.split(rf"^{MARK} (\d+)\n", done.stdout, flags=re.M)
    for index, command in enumerate(commands):
        # The copy's folder is elided as the docs elide it: "..." matches any text.
        command.printed = (parts[2 * index] if 2 * index < len(parts) else "").replace(str(project), "...")
        command.status = int(parts[2 * index + 1]) if 2 * index + 1 < len(parts) else -1
    return found


def _pattern(line: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(piece) for piece in line.rstrip().split("...")) + r"\s*")


def mismatch(command: Command, lang: str = "console") -> str | None:
    """Why what a command printed is not what its example shows; None when it is."""
    if command.status != command.exits:
        return f"`{command.line}` exited {command.status}, not {command.exits}:\n{command.printed}"
    if lang == "bash":  # a bash block shows commands only
        return None
    # Blank lines are layout, in the docs and in what a command prints alike.
    expected = [line for line in command.expected if line.strip()]
    printed = [line for line in command.printed.splitlines() if line.strip()]
    if not _matches(expected, printed):
        return f"`{command.line}` printed:\n{command.printed}\nthe docs show:\n" + "\n".join(command.expected)
    return None


def _matches(expected: list[str], printed: list[str]) -> bool:
    if not expected:
        return not printed
    head, rest = expected[0], expected[1:]
    if head.strip() == "...":
        return any(_matches(rest, printed[i:]) for i in range(len(printed) + 1))
    return bool(printed) and bool(_pattern(head).fullmatch(printed[0])) and _matches(rest, printed[1:])


def rewrite(page: Path, ran: list[Block]) -> None:
    """Put what each console block's commands printed in place of what the page shows, where they differ."""
    text = page.read_text(encoding="utf-8")
    for block in sorted((b for b in ran if b.lang == "console"), key=lambda b: -b.start):
        # Output the page shows that still matches (trimmed by hand with `...`) is kept as it is.
        body = "".join(f"$ {c.line}\n" + (c.printed if mismatch(c) else "".join(f"{e}\n" for e in c.expected))
                       for c in block.commands)
        text = text[: block.start] + body + text[block.end :]
    page.write_text(text, encoding="utf-8")


def pages() -> list[Path]:
    return sorted(p for p in DOCS.glob("*.md") if blocks(p.read_text(encoding="utf-8")))
