"""A fake OpenAI-compatible chat server on 127.0.0.1 for tests and benchmarks.

It answers `POST .../chat/completions` like a provider would, so litellm is
exercised for real over HTTP. By default it plays a cooperative panelist:
prose for an answer prompt, a valid ballot for a vote prompt, a structured
conclusion for a conclusion prompt. Per model, a queue of scripted actions
(delay, HTTP status, raw text) is consumed first, one per request.
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT = None  # in a script: answer as the default panelist would


@dataclass
class Action:
    status: int = 200
    text: str | None = None
    delay: float = 0.0
    headers: dict | None = None
    raw: bytes | None = None  # a body sent as it is, e.g. a reply cut off mid-way
    finish: str = "stop"  # the reply's finish_reason: "length" for a reply stopped at max_tokens
    cut: bool = False  # streamed: the connection ends half-way, with no finish_reason and no [DONE]
    reset: bool = False  # the connection is closed with no reply at all
    usage: dict | None = None  # the usage the reply claims, in place of the honest count


def text_of(content) -> str:
    """A message's text: a string, or content blocks (as sent with cache marks) joined."""
    if isinstance(content, list):
        return "".join(str(b.get("text") or "") for b in content if isinstance(b, dict))
    return content or ""


def prompt_of(messages: list[dict]) -> str:
    return "\n".join(text_of(m.get("content")) for m in messages if m.get("role") == "user")


HEADINGS = {
    "# Write the panel's conclusion": "conclude",
    "# Review the panel's answers": "vote",
    "# Cross-examine your peers": "critique",
    "# Answer the critiques of your answer": "rebut",
    "# Review a draft": "review",
    "# Critique round": "stance",
    "# Judge the panel's convergence": "judge",
    "# Judge a match between two answers": "match",
    "# Split the question into parts": "split",
    "# Answer one part of a research question": "part",
    "# Research the question as": "research",
    "# Propose alternatives": "alternatives",
    "# Score the alternatives as": "rank",
    "# Should the panel deliberate?": "triage",
    "# Argue your answer against another": "argue",
    "# Answer the question directly": "conclude",
}


def task_of(messages: list[dict]) -> str:
    prompt = prompt_of(messages)
    return next((task for heading, task in HEADINGS.items() if heading in prompt), "respond")


def structure(prompt: str) -> str:
    """The prompt as its template wrote it, fenced data taken out: what a careful model reads as the task."""
    out, fence = [], None
    for line in prompt.splitlines():
        mark = re.match(r"^(`{3,})", line)
        if fence is None and mark:
            fence = mark.group(1)
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None:
            out.append(line)
    return "\n".join(out)


def fair_ballot(prompt: str, word: str, termination: str) -> str:
    """A ballot that reads each answer: APPROVE where it holds `word`, REJECT elsewhere, whatever its place."""
    parts = re.split(r"^## Answer ([\w.-]+)(?: \(.*\))?$", prompt, flags=re.MULTILINE)
    votes = [{"label": label, "vote": "APPROVE" if word in body.split("\n## ")[0] else "REJECT",
              "reasoning": f"read answer {label}"} for label, body in zip(parts[1::2], parts[2::2])]
    return json.dumps({"votes": votes, "termination": {"vote": termination, "reasoning": "fair"}})


def filled(text: str, max_tokens: int) -> str:
    """`text` padded with common one-token words to about `max_tokens` tokens."""
    words = ("the", "panel", "power", "first", "orbit", "cost", "risk", "plan", "time", "use")
    pad = max_tokens - len(text.split()) * 2
    return text + " " + " ".join(words[i % len(words)] for i in range(max(pad, 0))) if pad > 0 else text


def default_reply(model: str, messages: list[dict], termination: str = "CONCLUDE", judge: float = 0.9) -> str:
    prompt = prompt_of(messages)
    task = task_of(messages)
    if task == "stance":
        labels = re.findall(r"^### Position ([A-Z])$", structure(prompt), re.MULTILINE)
        rnd = re.search(r"# Critique round (\d+)", prompt).group(1)
        return json.dumps({
            "agreements": [{"with": label, "on": "the first finding"} for label in labels[:1]],
            "disagreements": [{"with": label, "on": "the second finding", "why": f"{model} doubts it"}
                              for label in labels[1:]],
            "position": f"Position of {model} in critique round {rnd}.\n\n## Finding one\n\nKept.\n",
            "confidence": 0.8})
    if task == "match":
        # the answer of the alphabetically first author wins, wherever it is shown
        authors = re.findall(r"Answer of (\w+) in round", prompt)
        return json.dumps({"winner": "A" if authors[0] <= authors[1] else "B", "reasoning": f"{model} decided"})
    if task == "split":
        return json.dumps({"parts": [{"title": f"Part {i}", "question": f"Question {i}?"} for i in (1, 2, 3)]})
    if task == "part":
        part = re.search(r"## Your part: (.+)", prompt).group(1)
        return f"{model} answers {part}.\n"
    if task == "research":
        persona = re.search(r"# Research the question as (.+)", prompt).group(1)
        return json.dumps({"findings": f"Research by {model} as {persona}.", "confidence": 0.5})
    if task == "alternatives":
        return json.dumps({"alternatives": [{"title": f"Option {x}", "description": f"Do {x}."} for x in "XY"]})
    if task == "rank":
        labels = re.findall(r"^### Alternative ([A-Z]):", structure(prompt), re.MULTILINE)
        dims = ("impact", "quality", "feasibility", "reusability", "risk")
        return json.dumps({"scores": [{"alternative": lab, **{d: 0.9 if i == 0 else 0.4 for d in dims}}
                                      for i, lab in enumerate(labels)],
                           "concern": f"{model} worries about cost", "confidence": 0.8})
    if task == "judge":
        return json.dumps({"recommendation": judge, "keyFacts": judge, "caveats": judge,
                           "reasoning": f"{model} judged"})
    if task == "vote":
        # Letters, or authors' ids where ballots name them ("## Answer alpha (Alpha)").
        labels = re.findall(r"^## Answer ([\w.-]+)(?: \(.*\))?$", structure(prompt), re.MULTILINE)
        votes = [{"label": label, "vote": "APPROVE" if i == 0 else "NEUTRAL",
                  "reasoning": f"{model} on answer {label}"} for i, label in enumerate(labels)]
        return json.dumps({"votes": votes,
                           "termination": {"vote": termination, "reasoning": f"{model} says {termination}"}})
    if task == "critique":
        labels = re.findall(r"^### Answer ([A-Z])$", structure(prompt), re.MULTILINE)
        return json.dumps({"critiques": [{"label": label, "critique": f"{model} critiques answer {label}."}
                                         for label in labels]})
    if task == "rebut":
        return f"Rebuttal of {model}.\n\n## Revised answer\n\nRevised answer of {model}.\n"
    if task == "review":
        return f"Review by {model}: the draft needs numbers.\n"
    if task == "argue":
        return f"Argument of {model}: mine is sounder.\n"
    if task == "triage":
        return json.dumps({"ambiguity": 0.9, "complexity": 0.9, "stakes": 0.9, "contextDependency": 0.9,
                           "reasoning": f"Triage by {model}."})
    if task == "conclude":
        return json.dumps({
            "summary": f"Conclusion written by {model}.",
            "keyPoints": ["first point", "second point"],
            "unresolvedQuestions": ["an open question"],
            "recommendedActions": ["an action"],
            "minorityPositions": [{"position": "a dissent", "heldBy": "someone", "reasoning": "a reason"}],
        })
    rnd = re.search(r"## Your task \(round (\d+)\)", prompt)
    return f"Answer of {model} in round {rnd.group(1) if rnd else '?'}.\n\nIt has **two** paragraphs.\n"


class FakeLLM:
    def __init__(self, latency: float = 0.0, termination: str = "CONCLUDE", judge: float = 0.9,
                 jitter: float = 0.0, seed: int = 0):
        self.latency = latency
        self.jitter, self._rng = jitter, random.Random(seed)  # extra delay, uniform in [0, jitter)
        self.judge = judge  # the score every default judge's axis gets
        self.termination = termination  # what default ballots vote
        self.requests: list[dict] = []
        self.scripts: dict[str, list] = {}
        self.always: dict[str, Action] = {}
        self._lock = threading.Lock()
        self._handling = threading.local()  # what the server thread handling a request knows of it
        self._server: ThreadingHTTPServer | None = None
        self.in_flight = self.peak = 0  # requests being answered now, and the most at once
        self.models: list[str] | None = None  # set: GET /models lists these, as local servers do
        self.owned_by = "fake"  # the listing's `owned_by` ("vllm" as vLLM's says)
        self.props: dict | None = None  # set: GET /props answers this, as llama.cpp's server does (total_slots)
        self.gets: list[str] = []  # the path of every GET, in order
        # Set: a fair voter, that approves each answer holding this word wherever it is shown, rejects the others.
        self.approve_containing: str | None = None
        self.models_delay = 0.0  # a server busy generating answers /models late
        # On: like OpenAI's automatic prompt caching, a prompt whose start was sent before by the same
        # model reports that start as cached (from 1,024 tokens, in steps of 128; 4 characters a token).
        self.caching = False
        self.stream_usage = True  # off: a stream never says what it cost, even when asked to
        # On: every prose answer fills the call's max_tokens, as a verbose model's do (one token a word).
        self.fill = False
        self._prompts: dict[str, list[str]] = {}
        # Set: (model, messages) -> a reply, or None for the default; asked before the default reply.
        self.responder: Callable[[str, list[dict]], str | None] | None = None

    # -- scripting ---------------------------------------------------------
    def script(self, model: str, *actions) -> None:
        self.scripts.setdefault(model, []).extend(actions)

    def fail_always(self, model: str, status: int = 500) -> None:
        self.always[model] = Action(status=status, text="always failing")

    def requests_for(self, model: str, task: str | None = None) -> list[dict]:
        return [r for r in self.requests if r["model"] == model and (task is None or r["task"] == task)]

    # -- serving -----------------------------------------------------------
    def _next(self, model: str) -> Action | None:
        with self._lock:
            if model in self.always:
                return self.always[model]
            queue = self.scripts.get(model) or []
            return queue.pop(0) if queue else DEFAULT

    def handle(self, body: dict, auth: str = "") -> tuple[int, dict, dict]:
        model, messages = body.get("model", ""), body.get("messages", [])
        entry = {"model": model, "task": task_of(messages), "messages": messages, "at": time.monotonic(),
                 "stream": bool(body.get("stream")), "body": body,
                 "peer": getattr(self._handling, "peer", None)}  # the client's end of the connection
        with self._lock:
            self.requests.append(entry)
        action = self._next(model) or Action()
        with self._lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            extra = self._rng.random() * self.jitter if self.jitter else 0.0
        time.sleep(self.latency + action.delay + extra)
        with self._lock:
            self.in_flight -= 1
            entry["end"] = time.monotonic()
        if action.raw is not None:
            return action.status, action.raw, action.headers or {}
        if action.reset:
            return 0, b"", {"reset": "1"}
        if action.status != 200:
            # "{auth}" echoes the credentials, as a careless provider might in an error.
            message = (action.text or "error").replace("{auth}", auth)
            return action.status, {"error": {"message": message, "type": "fake"}}, action.headers or {}
        custom = self.responder(model, messages) if self.responder and action.text is None else None
        text = action.text if action.text is not None else custom if custom is not None \
            else default_reply(model, messages, self.termination, self.judge)
        if self.approve_containing and action.text is None and task_of(messages) == "vote":
            text = fair_ballot(prompt_of(messages), self.approve_containing, self.termination)
        if self.fill and action.text is None and not text.lstrip().startswith("{"):
            text = filled(text, int(body.get("max_tokens") or 0))
        prompt_tokens = sum(len(text_of(m.get("content"))) for m in messages) // 4
        completion_tokens = len(text) // 4
        if self.fill and body.get("max_tokens"):  # a server bills no more than the reply's cap, however it counts
            completion_tokens = min(completion_tokens, int(body["max_tokens"]))
        details = {"prompt_tokens_details": {"cached_tokens": self._cached(model, messages)}} if self.caching else {}
        return 200, {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion",
            "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": action.finish}],
            "usage": action.usage if action.usage is not None else {
                "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens, **details},
        }, {"cut": "1"} if action.cut else (action.headers or {})

    def _cached(self, model: str, messages: list[dict]) -> int:
        text = "\x00".join(text_of(m.get("content")) for m in messages)
        with self._lock:
            earlier = self._prompts.setdefault(model, [])
            shared = max((len(os.path.commonprefix([text, e])) for e in earlier), default=0)
            earlier.append(text)
        tokens = shared // 4
        return tokens // 128 * 128 if tokens >= 1024 else 0

    def start(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # A reply goes out in two writes (head, body); with Nagle's algorithm the body waits for the
            # client's delayed ACK of the head, 40 ms a reply that no server of models adds.
            disable_nagle_algorithm = True

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                if not length or len(raw) < length:  # the client died mid-request: nothing was asked
                    self.close_connection = True
                    return
                body = json.loads(raw)
                fake._handling.peer = self.client_address
                status, payload, headers = fake.handle(body, self.headers.get("authorization") or "")
                if headers.get("reset"):
                    self.close_connection = True
                    return self.connection.shutdown(2)
                if body.get("stream") and status == 200 and isinstance(payload, dict):
                    with_usage = fake.stream_usage and (body.get("stream_options") or {}).get("include_usage")
                    return self.stream(payload, with_usage,
                                       cut=bool(headers.get("cut")))
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def _send_json(self, text: str) -> None:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(text)))
                self.end_headers()
                self.wfile.write(text.encode())

            def do_GET(self):  # noqa: N802
                """/log: every request's start and end on the server's clock, and the most at once."""
                fake.gets.append(self.path)
                if self.path.endswith("/props") and fake.props is not None:
                    self._send_json(json.dumps(fake.props))
                    return
                if self.path.endswith("/models") and fake.models is not None:
                    time.sleep(fake.models_delay)
                    listed = json.dumps({"object": "list", "data": [{"id": m, "object": "model",
                                                                     "owned_by": fake.owned_by} for m in fake.models]})
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(listed)))
                    self.end_headers()
                    try:
                        self.wfile.write(listed.encode())
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    return
                with fake._lock:
                    log = [{"task": r["task"], "start": r["at"], "end": r.get("end")} for r in fake.requests]
                data = json.dumps({"requests": log, "peak": fake.peak}).encode()
                self.send_response(200 if self.path.endswith("/log") else 404)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def stream(self, payload: dict, with_usage: bool, cut: bool = False) -> None:
                """The reply as server-sent events: a chunk per word, the finish, the usage, [DONE].

                `cut`: half the words, then the end of the connection, as a server that drops a stream.
                """
                head = {k: payload[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
                words = [w for w in re.findall(r"\S*\s*", payload["choices"][0]["message"]["content"]) if w]
                events = [head | {"choices": [{"index": 0, "delta": {"role": "assistant", "content": w},
                                               "finish_reason": None}]} for w in words[:len(words) // 2 if cut else None]]
                if not cut:
                    events.append(head | {"choices": [{"index": 0, "delta": {},
                                                       "finish_reason": payload["choices"][0]["finish_reason"]}]})
                if with_usage and not cut:
                    events.append(head | {"choices": [], "usage": payload["usage"]})
                data = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
                data += b"" if cut else b"data: [DONE]\n\n"
                self.close_connection = True
                try:
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("content-length", str(len(data)))
                    # Said, as a server that closes must: a client that is not told may send its next request
                    # down this connection as it closes, and lose it.
                    self.send_header("connection", "close")
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        class Server(ThreadingHTTPServer):
            # socketserver's listen queue is 5: a sixth connection opened at once waits a second for its
            # SYN to be sent again. Servers of models (uvicorn, ollama) queue hundreds.
            request_queue_size = 128

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.handle_error = lambda request, address: None  # a killed client is no server error
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


ARITHMETIC = re.compile(r"What is the result of (\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+)\?")


def arithmetic(model: str, messages: list[dict]) -> str | None:
    """A member that answers the eval's arithmetic items right; anything else (ballots, conclusions) the default."""
    prompt = messages[-1]["content"] if isinstance(messages[-1]["content"], str) else ""
    found = ARITHMETIC.search(prompt)
    if not found or '"votes"' in prompt or "conclusion" in prompt.lower():
        return None
    a, b, c, d, e, f = map(int, found.groups())
    return f"Worked through it.\n\nAnswer: {a + b * c + d - e * f}"


if __name__ == "__main__":  # in its own process: python tests/fakeserver.py [LATENCY] [TERMINATION] [arithmetic]
    import sys

    server = FakeLLM(latency=float(sys.argv[1]) if len(sys.argv) > 1 else 0.0,
                     termination=sys.argv[2] if len(sys.argv) > 2 else "CONCLUDE").start()
    if sys.argv[3:] == ["arithmetic"]:
        server.responder = arithmetic
    print(server.url, flush=True)
    threading.Event().wait()
