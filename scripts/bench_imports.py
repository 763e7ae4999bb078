"""What each import of discuss's own modules left inside a function keeps off the path that skips it.

For every such import, a fresh interpreter imports the module that holds it, then the module it names;
the second import's time (median of --runs) is what importing it at the top would add to every command
that loads the holder. Each is reported in milliseconds and as a fraction of `discuss --help`'s start-up
measured in the same run; one under 10 ms is one to move to the top. Usage:
python scripts/bench_imports.py [--runs 3]
"""

from __future__ import annotations

import argparse
import ast
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
WORTH = 0.010  # seconds: below this a late import is not worth the reader's trouble


def late_imports() -> list[tuple[str, int, str]]:
    """(holder module, line, imported module) for each import of discuss made inside a function."""
    found = set()
    for path in sorted((SRC / "discuss").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        holder = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = holder if path.name == "__init__.py" else holder.rpartition(".")[0]
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("discuss")):
                    base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                    target = ".".join([*base, *([node.module] if node.module else [])])
                    names = [f"{target}.{a.name}" for a in node.names]
                    modules = [n for n in names if (SRC / n.replace(".", "/")).with_suffix(".py").exists()
                               or (SRC / n.replace(".", "/") / "__init__.py").exists()]
                    for module in modules or [target]:
                        found.add((holder, node.lineno, module))
                elif isinstance(node, ast.Import):
                    found |= {(holder, node.lineno, a.name) for a in node.names if a.name.startswith("discuss")}
    return sorted(found)


def cost(holder: str, target: str, runs: int) -> float:
    code = ("import importlib, time\nimport " + holder + "\nstart = time.perf_counter()\n"
            f"importlib.import_module({target!r})\nprint(time.perf_counter() - start)\n")
    env = {**os.environ, "PYTHONPATH": str(SRC), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    times = [float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                  check=True).stdout) for _ in range(runs)]
    return statistics.median(times)


def help_time(runs: int) -> float:
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "discuss", "--help"], cwd=tmp, capture_output=True, check=True,
                           env={**os.environ, "PYTHONPATH": str(SRC)})
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    compileall.compile_dir(str(SRC / "discuss"), quiet=1)  # as an install that has run holds them, bytecode or not
    base = help_time(max(args.runs, 5))
    print(f"discuss --help {base * 1000:.0f} ms (median); each late import, what importing it at the top would add:")
    rows = [(cost(h, t, args.runs), h, line, t) for h, line, t in late_imports()]
    for seconds, holder, line, target in sorted(rows, reverse=True):
        mark = "" if seconds >= WORTH else "   <- under 10 ms"
        print(f"{seconds * 1000:7.1f} ms {seconds / base:6.3f}  {holder}:{line} -> {target}{mark}")
    small = sum(1 for seconds, *_ in rows if seconds < WORTH)
    print(f"{len(rows)} late imports; {small} under 10 ms")


if __name__ == "__main__":
    main()
