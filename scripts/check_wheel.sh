#!/usr/bin/env bash
# Build the wheel and sdist as a release does, check them, and run the wheel alone: a clean venv with
# nothing of this checkout, a project `discuss init` makes, every protocol offline, the site built.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
.venv/bin/python -m build --outdir "$work/dist" . >/dev/null 2>&1 || .venv/bin/python -m build --outdir "$work/dist" .
.venv/bin/twine check --strict "$work"/dist/*
wheel="$(ls "$work"/dist/*.whl)"
# The dependencies at the locked versions, the package from its wheel only.
.venv/bin/uv export --quiet --locked --no-dev --no-emit-project --no-hashes --format requirements-txt \
  -o "$work/constraints.txt"
.venv/bin/uv venv --quiet --python .venv/bin/python "$work/venv"
VIRTUAL_ENV="$work/venv" .venv/bin/uv pip install --quiet --constraint "$work/constraints.txt" "$wheel"
discuss="$work/venv/bin/discuss"
cd "$work"
"$discuss" init project >/dev/null
cd project
echo "A check of the installed wheel." > background.txt
protocols="$("$discuss" protocols | awk '/^[a-z]/ {print $1}')"  # a protocol's own line; its settings are indented
for protocol in $protocols; do
  "$discuss" ask "Which swarm unit should be replaced first, by the $protocol protocol?" \
    --background background.txt --panel offline --protocol "$protocol" >/dev/null \
    || { echo "the wheel alone failed the $protocol protocol" >&2; exit 1; }
done
# The shipped labelled sets and their licences come with the wheel, and the site draws an eval's page.
"$discuss" eval gsm8k --panel offline --items 2 --arms single:pragmatist,majority -q >/dev/null \
  || { echo "the wheel alone failed an eval of a shipped set" >&2; exit 1; }
"$work/venv/bin/python" -c "from discuss.store.evalsets import SHIPPED; assert (SHIPPED / 'LICENSE-gsm8k.txt').is_file()"
NO_MKDOCS_2_WARNING=1 "$work/venv/bin/mkdocs" build --quiet
test -s site/index.html && test -s site/evals/gsm8k.html  # a new project's site works from disk: no directory URLs
echo "wheel: $(basename "$wheel"), every protocol ($(echo $protocols | wc -w)), an eval of a shipped set and the site ran from it alone"
