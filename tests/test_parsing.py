"""Ballots and conclusions as models write them: valid, sloppy and wrong."""

import json

import pytest

from discuss.protocols.vote.ballots import parse_ballot
from discuss.text.conclusions import parse_conclusion, render_markdown
from discuss.text.jsonreply import ReplyError

LABELS = ["A", "B", "C"]


def ballot(votes, termination=("CONCLUDE", "done")):
    return json.dumps({"votes": votes, "termination": {"vote": termination[0], "reasoning": termination[1]}})


def entry(label, vote="APPROVE", why="ok"):
    return {"label": label, "vote": vote, "reasoning": why}


def test_valid_ballot_in_a_code_fence_with_chatter():
    text = "Here you go:\n```json\n" + ballot([entry("B", "reject", "weak"), entry("A"), entry("C", "NEUTRAL")]) + "\n```"
    parsed = parse_ballot(text, LABELS)
    assert parsed.votes == [("A", "APPROVE", "ok"), ("B", "REJECT", "weak"), ("C", "NEUTRAL", "ok")]
    assert (parsed.termination, parsed.termination_reasoning) == ("CONCLUDE", "done")


def test_mapping_form_is_accepted():
    text = json.dumps({"votes": {"A": "APPROVE", "B": {"vote": "NEUTRAL"}, "C": "REJECT"},
                       "termination": {"vote": "continue"}})
    assert parse_ballot(text, LABELS).termination == "CONTINUE"


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("I approve of all of them.", "no JSON"),
    ("{not json}", "does not parse"),
    ("[1, 2]", "no JSON object"),
    (json.dumps({"termination": {"vote": "CONCLUDE"}}), "'votes' is missing"),
    (ballot([entry("A"), entry("B")]), "no vote for C"),
    (ballot([entry("A"), entry("B"), entry("C"), entry("A")]), "more than once"),
    (ballot([entry("A"), entry("B"), entry("D")]), "unknown label 'D'"),
    (ballot([entry("A"), entry("B"), entry("C", "STRONGLY APPROVE")]), "APPROVE, NEUTRAL or REJECT"),
    (ballot([entry("A"), entry("B"), entry("C", 3)]), "APPROVE, NEUTRAL or REJECT"),
    (ballot([entry("A"), entry("B"), entry("C")], ("MAYBE", "")), "CONCLUDE or CONTINUE"),
    (json.dumps({"votes": [entry("A"), entry("B"), entry("C")]}), "'termination'"),
])
def test_invalid_ballots_are_refused_with_a_reason(text, message):
    with pytest.raises(ReplyError, match=message):
        parse_ballot(text, LABELS)


def test_conclusion_from_json_and_back_to_markdown():
    c = parse_conclusion(json.dumps({
        "summary": "We agree.", "keyPoints": ["one", "two"], "unresolvedQuestions": ["why?"],
        "recommendedActions": ["act"], "minorityPositions": [{"position": "no", "heldBy": "x", "reasoning": "r"}, "also no"],
    }))
    assert c.key_points == ["one", "two"] and c.minority_positions[0].held_by == "x"
    assert c.minority_positions[1].position == "also no"
    md = render_markdown(c)
    assert "## Key Points\n\n- one\n- two" in md and "- no (x): r" in md


def test_conclusion_from_markdown_sections():
    c = parse_conclusion("## Summary\nAll good.\n\n## Key Points\n- a\n* b\n\n## Recommended Actions\n1. do it\n")
    assert (c.summary, c.key_points, c.recommended_actions) == ("All good.", ["a", "b"], ["do it"])


@pytest.mark.parametrize("text", ["", "no structure at all", json.dumps({"summary": ""}),
                                  json.dumps({"summary": "x", "keyPoints": "not a list"})])
def test_conclusion_without_summary_or_with_wrong_shape_is_refused(text):
    with pytest.raises(ReplyError):
        parse_conclusion(text)


@pytest.mark.parametrize("reply", ['{"summary": "{"}', '{"summary": "..."}', "## Summary\n\n{\n", "## Summary\n\n- \n"])
def test_a_conclusion_whose_summary_holds_no_words_is_refused(reply):
    """A small local model answered a conclusion with a lone "{": it was published as the panel's conclusion."""
    from discuss.text.conclusions import parse_conclusion
    from discuss.text.jsonreply import ReplyError

    with pytest.raises(ReplyError):
        parse_conclusion(reply)


def test_a_reply_with_two_different_ballots_is_refused_never_resolved_by_order():
    import pytest

    from discuss.text.jsonreply import ReplyError, extract_object

    forged = '{"votes": [{"label": "A", "vote": "REJECT"}], "termination": {"vote": "CONCLUDE"}}'
    own = '{"votes": [{"label": "A", "vote": "APPROVE"}], "termination": {"vote": "CONTINUE"}}'
    with pytest.raises(ReplyError, match="2 different JSON objects"):
        extract_object(f"As answer B said:\n```json\n{forged}\n```\nMy ballot:\n{own}")
    assert extract_object(f"{own}\n\nAgain: {own}")["votes"][0]["vote"] == "APPROVE"  # the same one twice



def test_a_persons_termination_given_as_one_word_is_read_as_that_vote():
    """A person's form may say `termination: CONCLUDE`; a model's ballot must still give the object."""
    import pytest

    from discuss.protocols.vote.ballots import parse_ballot
    from discuss.protocols.vote.forms import reply
    from discuss.text.jsonreply import ReplyError

    filled = reply({"votes": {"A": "APPROVE", "B": "REJECT"}, "termination": "conclude"})
    ballot = parse_ballot(json.dumps(filled), ["A", "B"])
    assert ballot.termination == "CONCLUDE" and ballot.termination_reasoning == ""
    with pytest.raises(ReplyError, match="must be an object"):
        parse_ballot('{"votes": {"A": "APPROVE", "B": "REJECT"}, "termination": "CONCLUDE"}', ["A", "B"])
