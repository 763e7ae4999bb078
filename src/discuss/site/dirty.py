"""What a dirty build (`mkdocs serve --dirty`, `mkdocs build --dirty`) must still render.

MkDocs rebuilds a page in a dirty build only when its own file is newer than its output; a question's page
also shows its discussion's files, its follow-ups and what the plugin, its templates and its settings make
of them. So each published page's stamp (a digest of all that) is kept beside the site, and a page whose
stamp changed since the build that wrote it is rebuilt. A wrong stamp could only rebuild too much: a page
with no stamp kept, or a site written by another version, is rebuilt whole.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..store.files import write_atomic

STAMPS = ".discuss-pages.json"  # in the site folder; MkDocs leaves dot-files of the site alone


def stamps(entries: list[Any], common: str) -> dict[str, str]:
    """Each question page's stamp: its files' signatures, its parts' and trials', and `common` (a digest of
    the code that renders pages and the plugin's settings)."""
    out = {}
    for entry in entries:
        signatures = [repr(x.signature) for x in (entry, *entry.parts, *entry.trials)]
        out[entry.src_uri] = hashlib.sha256("\n".join([common, *signatures]).encode()).hexdigest()
    return out


def kept(site_dir: Path) -> dict[str, str]:
    """The stamps the last build wrote; none where there are none or they cannot be read."""
    try:
        found = json.loads((site_dir / STAMPS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def keep(site_dir: Path, current: dict[str, str]) -> None:
    if site_dir.is_dir():
        write_atomic(site_dir / STAMPS, json.dumps(current, indent=0, sort_keys=True))


def mark_changed(files: Any, current: dict[str, str], before: dict[str, str]) -> int:
    """Make every question page whose stamp changed count as modified for this build; how many."""
    changed = 0
    for f in files:
        if f.src_uri in current and before.get(f.src_uri) != current[f.src_uri]:
            f.is_modified = lambda: True  # the page's own file may be older than what it shows
            changed += 1
    return changed
