"""The persona library, `discussions/personas/<id>.yaml`: name, priorities, conflicts."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from . import documents, yamlio


def load_personas(folder: Path) -> dict[str, dict]:
    library = {}
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
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
