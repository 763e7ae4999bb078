"""Fuzzing every parser of model output and the store's loaders with hypothesis.

Properties: a parser either returns a value or raises ReplyError (the
message goes back to the model), never anything else; whatever text a
model writes is stored and read back unchanged; a loader of a damaged file
raises InputError naming it, never a crash.
"""

import json
import string

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from discuss.errors import InputError
from discuss.protocols.council.critiques import parse_critiques
from discuss.protocols.critique.replies import parse_judge, parse_stance
from discuss.protocols.decompose.replies import parse_split
from discuss.protocols.deliberate.replies import parse_alternatives, parse_ranking, parse_research
from discuss.protocols.tournament.replies import parse_match
from discuss.protocols.vote.ballots import parse_ballot
from discuss.protocols.vote.record import ballot_box
from discuss.store import discussions as store
from discuss.text.conclusions import parse_conclusion
from discuss.text.jsonreply import ReplyError

FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
LABELS = ["A", "B", "C"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["votes", "label", "vote", "reasoning", "termination", "summary", "keyPoints",
                         "critiques", "critique", "position", "confidence", "with", "on", "why", "winner",
                         "parts", "title", "question", "findings", "alternatives", "description", "scores",
                         "alternative", "impact", "quality", "feasibility", "reusability", "risk",
                         "recommendation", "keyFacts", "caveats", "minorityPositions", "round", "heldBy"]),
        inner, max_size=6),
    max_leaves=25)
replies = st.one_of(st.text(max_size=300), json_values.map(json.dumps),
                    json_values.map(lambda v: f"Sure!\n```json\n{json.dumps(v)}\n```\nThanks."))
PARSERS = {
    "ballot": lambda t: parse_ballot(t, LABELS),
    "conclusion": parse_conclusion,
    "critiques": lambda t: parse_critiques(t, LABELS),
    "stance": lambda t: parse_stance(t, LABELS),
    "judge": parse_judge,
    "match": parse_match,
    "split": lambda t: parse_split(t, 2, 6),
    "research": parse_research,
    "alternatives": lambda t: parse_alternatives(t, 2, 5),
    "ranking": lambda t: parse_ranking(t, LABELS, ["impact", "quality", "feasibility", "reusability", "risk"]),
}


@pytest.mark.parametrize("name", sorted(PARSERS))
@FUZZ
@given(text=replies)
def test_parsers_return_or_refuse_with_a_reason(name, text):
    try:
        PARSERS[name](text)
    except ReplyError as exc:
        assert str(exc)  # the reason is sent back to the model


@FUZZ
@given(text=st.text(max_size=400), reasoning=st.text(max_size=80))
def test_any_model_text_is_stored_and_read_back_unchanged(tmp_path, text, reasoning):
    from test_store import sample

    d = sample((text, "x"))
    ballot_box(d.rounds[0]).votes[0].reasoning = reasoning
    d.conclusion.summary = text.strip() or "s"
    folder = tmp_path / f"d{abs(hash((text, reasoning)))}"
    store.save(d, folder)
    back = store.load(folder)
    assert back.rounds[0].replies["a"].text == text
    assert ballot_box(back.rounds[0]).votes[0].reasoning == reasoning
    store.save(back, folder)  # and saving what was read changes nothing
    assert store.load(folder).rounds[0].replies["a"].text == text


yamlish = st.text(alphabet=string.printable + "é\u202e", max_size=200)


@FUZZ
@given(index=st.one_of(yamlish, json_values.map(json.dumps)), votes=yamlish)
def test_damaged_files_are_refused_by_name_never_crash(tmp_path, index, votes):
    folder = tmp_path / "d"
    (folder / "round-1").mkdir(parents=True, exist_ok=True)
    (folder / "discussion.yaml").write_text(index)
    (folder / "round-1" / "votes.yaml").write_text(votes)
    (folder / "round-1" / "a.md").write_text("---\n" + votes + "\n---\n\nbody")
    try:
        store.load(folder)
        store.summary(folder)
    except InputError as exc:
        assert "discussion.yaml" in str(exc) or "round-1" in str(exc)


hostile_text = st.text(alphabet=st.characters(categories=["L", "N", "P", "S", "Z", "Cc", "Cs", "Cf"]), max_size=300)


@FUZZ
@given(text=hostile_text, reasoning=hostile_text)
def test_the_whole_text_path_holds_for_any_code_point(tmp_path, text, reasoning):
    """Reply in (cleaned at the edge), file out, file read back, page rendered: no crash, no control code."""
    from discuss.site.collect import Entry
    from discuss.site.render import question_section
    from discuss.store.questions import read_question
    from discuss.text.clean import clean
    from discuss.text.jsonreply import EchoError, extract_object
    from test_store import sample

    reply = clean(text)
    try:
        ballot = extract_object(json.dumps({"reasoning": reasoning}))["reasoning"]  # a JSON escape spelled it
    except EchoError:
        assume(False)  # a copy of a prompt's example ("YOUR ANSWER") is refused as it should be: nothing to keep
        return
    for kept in (reply, ballot):
        assert not any(0xD800 <= ord(c) <= 0xDFFF for c in kept) and "\x1b" not in kept
    d = sample((reply, "x"))
    ballot_box(d.rounds[0]).votes[0].reasoning = ballot
    folder = tmp_path / f"d{abs(hash((text, reasoning)))}"
    store.save(d, folder)
    back = store.load(folder)
    assert back.rounds[0].replies["a"].text == reply and ballot_box(back.rounds[0]).votes[0].reasoning == ballot
    question = folder.with_suffix(".md")
    question.write_text("---\ntitle: Q\nslug: q\n---\n\nBody\n")
    html = question_section(Entry(read_question(question), "q.md", back))
    assert "<script" not in html.lower() and "\x1b" not in html
