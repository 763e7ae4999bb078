"""A small DevTools client for browser tests: headless Chromium driven over a pipe.

Chromium started with --remote-debugging-pipe reads commands on fd 3 and
writes replies and events on fd 4, each a JSON message ended by a NUL byte.
That is enough to open pages, click and read the DOM, and to collect what
the console reported, with no package beyond the standard library.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import subprocess
import threading
import time


class PageError(AssertionError):
    pass


class Browser:
    def __init__(self, exe: str, profile) -> None:
        to_child, self._out = os.pipe()
        self._in, from_child = os.pipe()
        # Above 9, so that putting one on 3 or 4 never overwrites the other.
        to_child, from_child = (self._high(fd) for fd in (to_child, from_child))
        # bash (dash takes no fd above 9) puts the pipes where Chromium expects them: commands on 3, replies on 4.
        self.proc = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_child} 4>&{from_child} {to_child}<&- {from_child}>&-', exe,
             "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
             "--remote-debugging-pipe", "about:blank"],
            pass_fds=(to_child, from_child), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_child)
        os.close(from_child)
        self._next = 0
        self._replies: dict[int, queue.Queue] = {}
        self.events: queue.Queue = queue.Queue()
        self.errors: list[str] = []
        self.requests: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")

    @staticmethod
    def _high(fd: int) -> int:
        moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
        os.close(fd)
        return moved

    def _read(self) -> None:
        buffer = b""
        while chunk := os.read(self._in, 65536):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                if "id" in message:
                    self._replies.setdefault(message["id"], queue.Queue()).put(message)
                else:
                    self._note(message)
                    self.events.put(message)

    def _note(self, event: dict) -> None:
        params = event.get("params", {})
        if event.get("method") == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])
        elif event.get("method") == "Runtime.exceptionThrown":
            self.errors.append(params["exceptionDetails"].get("exception", {}).get("description", "exception"))
        elif event.get("method") == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
        elif event.get("method") == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(f'{params["entry"]["text"]} {params["entry"].get("url", "")}')

    def call(self, method: str, session: str | None = None, **params) -> dict:
        self._next += 1
        number = self._next
        self._replies.setdefault(number, queue.Queue())
        message = {"id": number, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        reply = self._replies[number].get(timeout=60)
        if "error" in reply:
            raise PageError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def send(self, method: str, **params) -> dict:
        return self.call(method, self.session, **params)

    def open(self, url: str) -> None:
        while not self.events.empty():
            self.events.get()
        self.send("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'")

    def eval(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise PageError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if self.eval(expression):
                    return
            except PageError:
                pass  # the page is being replaced
            time.sleep(0.05)
        raise PageError(f"never true: {expression}")

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._out)
