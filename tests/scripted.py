"""A scripted panel in a test project: scripts as Python values, written where `scripted/<name>` reads them."""

from __future__ import annotations

from ruamel.yaml import YAML


def scripted_panel(ids=("ann", "bob", "cy"), settings: str = "{retryBaseDelay: 0.0}", extra: str = "",
                   name: str = "default") -> str:
    members = "\n".join(f"        - {{id: {i}, model: scripted/{i}, name: {i.title()}}}" for i in ids)
    return f"    {name}:\n      members:\n{members}\n{extra}      settings: {settings}\n"


def write_scripts(root, **scripts: list[dict]) -> None:
    folder = root / "discussions" / "scripts"
    folder.mkdir(parents=True, exist_ok=True)
    for name, entries in scripts.items():
        with (folder / f"{name}.yaml").open("w") as fh:
            YAML().dump(entries, fh)


def ballot(termination: str = "CONTINUE", **votes: str) -> dict:
    """A ballot's JSON with `@id` labels: the panelists named get these votes."""
    return {"votes": [{"label": f"@{pid}", "vote": v, "reasoning": f"scripted {v.lower()}"} for pid, v in votes.items()],
            "termination": {"vote": termination, "reasoning": f"scripted {termination.lower()}"}}
