"""The project a command works in, as the front ends hold it: found from a folder (or named by `--root`), with
its folders, the settings file that makes a folder a project, and the one confinement rule for a path a person
or an agent gives, and the protocols a discussion may follow (the CLI's help names them). The CLI and the MCP
server take these from here, never from the store that owns them."""

from __future__ import annotations

from ..protocols import BUILT_IN, DEFAULT
from ..store.layout import PANELS_FILE, SETTINGS_DIR, Layout, confined

__all__ = ["BUILT_IN", "DEFAULT", "PANELS_FILE", "SETTINGS_DIR", "Layout", "confined"]
