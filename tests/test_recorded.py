"""Discussions an earlier version recorded, under every protocol, load and save byte for byte.

`data/recorded/` holds one offline discussion of each protocol as the
version before protocol settings moved out of the shared ones wrote it (every
protocol's numbers in every config). A later version must read each one and
write it back unchanged, replies, round files and index alike.
"""

import shutil
from pathlib import Path

import pytest

from discuss.store.discussions import load, save

RECORDED = Path(__file__).parent / "data" / "recorded"
NAMES = sorted(p.name for p in RECORDED.iterdir() if p.is_dir())


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_every_protocol_has_a_recorded_discussion():
    from discuss.protocols import names

    assert set(NAMES) == set(names())


@pytest.mark.parametrize("name", NAMES)
def test_a_recorded_discussion_is_written_back_as_it_was(tmp_path, name):
    folder = tmp_path / name
    shutil.copytree(RECORDED / name, folder)
    before = files_of(folder)
    d = load(folder)
    assert d is not None and d.protocol == name
    for written in [folder / "discussion.yaml", *folder.glob("round-*/*.yaml"), folder / "conclusion.md"]:
        written.unlink(missing_ok=True)  # written again from what was read, not left alone
    for r in d.rounds:
        for reply in r.replies.values():
            reply.saved = False
    save(d, folder)
    assert files_of(folder) == before


def test_a_config_is_written_in_the_order_it_was_recorded_with_changes_in_place():
    from discuss.store.configs import config_of, read_config

    raw = {"ballots": "named", "maxRounds": 3, "promptCache": "auto"}  # a hand-written order, a quiet default
    settings = read_config(raw, "discussion.yaml", "vote")
    assert list(config_of(settings, "vote"))[:3] == ["ballots", "maxRounds", "promptCache"]
    settings.own["ballots"] = "anonymised"
    settings.max_rounds = 4
    written = config_of(settings, "vote")
    assert (written["ballots"], written["maxRounds"], written["promptCache"]) == ("anonymised", 4, "auto")


def test_a_new_config_leaves_quiet_settings_at_their_defaults_out():
    from discuss.domain import Settings
    from discuss.store.configs import config_of

    written = config_of(Settings(own={"ballots": "anonymised", "showWinner": True}), "vote")
    assert "promptCache" not in written and "ballots" not in written and "showWinner" not in written
    assert list(written)[0] == "maxRounds"
    assert config_of(Settings(prompt_cache="off", own={"ballots": "named"}), "vote")["ballots"] == "named"


def test_a_new_discussion_records_the_shared_settings_and_its_protocols_own_only(project):
    from discuss.store import yamlio

    project.write_panels("    offline:\n      members:\n"
                         "        - {id: a, model: offline/pragmatist}\n        - {id: b, model: offline/skeptic}\n"
                         "      settings: {critiqueRounds: 2, quorum: 0.25, matchDebate: false}\n")
    assert project.cli("run", "swarm-power", "--panel", "offline", "--protocol", "critique", "-q").exit_code == 0
    config = yamlio.load((project.folder / "discussion.yaml").read_text())["config"]
    assert config["critiqueRounds"] == 2 and config["convergenceTest"] == "judge" and "maxRounds" in config
    assert not {"quorum", "matchDebate", "selfVoteWeight", "drafter"} & set(config)


def test_a_protocols_setting_of_the_wrong_kind_is_refused_when_the_panel_is_read(project):
    project.write_panels("    offline:\n      members:\n        - {id: a, model: offline/pragmatist}\n"
                         "      settings: {critiqueRounds: 0}\n")
    refused = project.cli("run", "swarm-power", "--panel", "offline", "--protocol", "vote")
    assert refused.exit_code == 2 and "critiqueRounds" in refused.output
    assert not project.folder.exists()


def test_a_recorded_config_gains_a_setting_added_since_only_once_it_is_changed(tmp_path):
    from discuss.store import yamlio, yamlwrite

    folder = tmp_path / "vote"
    shutil.copytree(RECORDED / "vote", folder)
    index = folder / "discussion.yaml"
    data = yamlio.load(index.read_text())
    del data["config"]["maxCalls"], data["config"]["personWaitHours"]  # as a version before budgets wrote it
    index.write_text(yamlwrite.dump(data))
    before = index.read_bytes()
    d = load(folder)
    save(d, folder)
    assert index.read_bytes() == before
    d.settings.max_calls = 40
    save(d, folder)
    config = yamlio.load(index.read_text())["config"]
    assert config["maxCalls"] == 40 and "personWaitHours" not in config
