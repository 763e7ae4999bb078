"""The `discuss` command: `status` over the archive is answered at once, every other command by the CLI.

Once a command is done (every file written with fsync and renamed,
every lock released, output flushed), the process exits at once: the
interpreter's teardown of the modules a run imports took 0.15 s after the
last reply (a second or more with litellm's), with nothing left to do.
"""

from __future__ import annotations

import os
import sys
import types

from .quick import status


def main() -> None:
    # httpx imports its own command line (click and rich: 80 ms) where they are installed, as typer's rich is;
    # this process never runs it, and httpx stands in for it where it cannot be imported.
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    # pydantic looks for plugins by reading every installed package's entry points (15 ms) before it checks
    # the first file; set the variable to another value to have a plugin of yours watch discuss's checks.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    code = status(sys.argv[1:])
    if code is not None:
        leave(code)  # a status over ten thousand discussions took 0.14 s to tear down what it read
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__":
        sys.modules.setdefault("pydantic.plugin._loader", _NoPlugins("pydantic.plugin._loader"))
    from .app import main as cli  # typer and every command's family: not needed by the status above

    try:
        cli()
    except SystemExit as done:
        leave(done.code)
    leave(0)


class _NoPlugins(types.ModuleType):
    """pydantic's plugin loader while plugins are off: the real one imports importlib.metadata (20 ms, for
    the entry points it would only read with plugins on) before it looks at the setting. Any other name
    is the real module's, imported then."""

    @staticmethod
    def get_plugins(*args: object, **kwargs: object) -> tuple:
        if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in ("__all__", "1", "true"):  # pydantic's own words for off
            return ()
        return _NoPlugins._real().get_plugins(*args, **kwargs)

    @staticmethod
    def _real() -> types.ModuleType:
        import importlib

        if isinstance(sys.modules.get("pydantic.plugin._loader"), _NoPlugins):
            del sys.modules["pydantic.plugin._loader"]
        return importlib.import_module("pydantic.plugin._loader")

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):  # what the import system asks of every module (`__path__`): not a package
            raise AttributeError(name)
        return getattr(_NoPlugins._real(), name)


def leave(code: object) -> None:
    if code is not None and not isinstance(code, int):  # SystemExit with a message prints it and exits 1
        print(code, file=sys.stderr)
        code = 1
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()  # a handler a plugin added writes what it holds
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # the reader left (`discuss show | head`): nothing more can reach it
        code = code or 1
    os._exit(0 if code is None else code)
