"""The persona library, `discussions/personas/<id>.yaml`: name, priorities, conflicts."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..naming import is_safe_id
from . import documents, yamlio

DEFAULT_ORDER = (
    "technical-architect", "security-analyst", "performance-engineer", "product-manager",
    "operations-engineer", "cost-analyst", "ux-researcher", "compliance-officer", "data-scientist",
    "contrarian", "reliability-engineer",
)


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


def assign(library: dict[str, dict], member_ids: list[str], wanted: str) -> dict[str, dict]:
    """A persona for each member: the ones named in `wanted` (comma-separated), else a diverse default."""
    if not library:
        raise InputError("the deliberate protocol needs personas in discussions/personas/")
    order = [w.strip() for w in wanted.split(",") if w.strip()] if wanted else [
        p for p in DEFAULT_ORDER if p in library] + sorted(set(library) - set(DEFAULT_ORDER))
    unknown = [p for p in order if p not in library or not is_safe_id(p)]
    if unknown:
        raise InputError(f"unknown persona {', '.join(unknown)} (library: {', '.join(sorted(library))})")
    return {mid: library[order[i % len(order)]] for i, mid in enumerate(member_ids)}
