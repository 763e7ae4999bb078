"""The persona library: name, priorities, conflicts.

The personas a protocol ships (in a folder it names, beside its module, so
an installed wheel has them) are read first; a project's own
`discussions/personas/<id>.yaml` adds to them, and replaces one of the same id.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from . import documents, yamlio


def load_personas(folder: Path, shipped: Path | None = None) -> dict[str, dict]:
    """The persona library, by id: those in `shipped` (a protocol's own), then the project's in `folder`."""
    library: dict[str, dict] = {}
    for path in [*(_files(shipped) if shipped is not None else []), *_files(folder)]:
        try:
            data = yamlio.load(documents.read_text(path))
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: cannot be read: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data.get("priorities"):
            raise InputError(f"{path}: a persona needs 'name' and 'priorities'")
        conflicts = data.get("conflictsWith") or []
        if not isinstance(conflicts, list):
            raise InputError(f"{path}: 'conflictsWith' must be a list of persona ids")
        library[path.stem] = {"id": path.stem, "name": data["name"], "priorities": str(data["priorities"]),
                              "conflictsWith": [str(c) for c in conflicts]}
    return library


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []
