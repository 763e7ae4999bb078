"""Checks before spending: keys present, models known, endpoints answering.

One row per panelist of each panel: `ok`, `warn` (the run will work, but
something is missing, like a price) or `fail` (the run would fail).
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from dataclasses import dataclass

from .domain import Panel, Panelist
from .gateway import missing_keys


@dataclass
class Row:
    panel: str
    member: str
    model: str
    key: str
    price: str
    endpoint: str

    @property
    def failed(self) -> bool:
        return any(v.startswith("fail") for v in (self.key, self.price, self.endpoint))


def _price(p: Panelist) -> str:
    if p.simulated:
        return "ok (offline)"
    from .gateway import _litellm

    try:
        _litellm().get_model_info(p.model)
        return "ok"
    except Exception:
        return "warn: unknown to litellm, cost not tracked"


def _endpoint(p: Panelist, timeout: float) -> str:
    if p.simulated:
        return "ok (offline)"
    if not p.api_base:
        return "not checked (hosted)"
    request = urllib.request.Request(p.api_base.rstrip("/") + "/models", method="GET")
    key = os.environ.get(p.api_key_env or "")
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout):
            return "ok"
    except urllib.error.HTTPError as exc:
        return f"ok (answers, HTTP {exc.code})"  # it is up; the route or key is the provider's business
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return f"fail: {p.api_base} does not answer ({reason})"


def check(panels: dict[str, Panel], timeout: float = 3.0) -> list[Row]:
    rows = []
    for name, panel in panels.items():
        for p in panel.everyone:
            missing = missing_keys([p])
            key = "ok" if not missing else "fail: missing " + ", ".join(m.split(" ")[0] for m in missing)
            rows.append(Row(name, p.id, p.model, "ok (offline)" if p.simulated else key, _price(p),
                            _endpoint(p, timeout)))
    return rows
