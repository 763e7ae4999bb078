"""Which persona each member of a deliberation takes, from the persona library: the personas shipped in
`personas/` beside this module, and the project's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from discuss.plugin import InputError, is_safe_id

SHIPPED = Path(__file__).resolve().parent / "personas"
DEFAULT_ORDER = (
    "technical-architect", "security-analyst", "performance-engineer", "product-manager",
    "operations-engineer", "cost-analyst", "ux-researcher", "compliance-officer", "data-scientist",
    "contrarian", "reliability-engineer",
)


def assign(library: dict[str, dict[str, Any]], member_ids: list[str], wanted: str) -> dict[str, dict[str, Any]]:
    """A persona for each member: the ones named in `wanted` (comma-separated), else a diverse default."""
    if not library:
        raise InputError("the deliberate protocol found no personas (discuss ships them; is the installation complete?)")
    order = [w.strip() for w in wanted.split(",") if w.strip()] if wanted else [
        p for p in DEFAULT_ORDER if p in library] + sorted(set(library) - set(DEFAULT_ORDER))
    unknown = [p for p in order if p not in library or not is_safe_id(p)]
    if unknown:
        raise InputError(f"unknown persona {', '.join(unknown)} (library: {', '.join(sorted(library))})")
    return {mid: library[order[i % len(order)]] for i, mid in enumerate(member_ids)}
