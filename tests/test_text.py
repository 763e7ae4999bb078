"""The edge where outside text enters: cleaning, encoding, scrubbing keys, finding JSON."""

from __future__ import annotations

import pytest

from discuss.text.clean import clean, encode, valid_unicode
from discuss.text.jsonreply import ReplyError, extract_object
from discuss.text.secrets import leaked_spans, scrub


@pytest.mark.parametrize("raw, kept", [
    ("plain text", "plain text"),
    ("tab\tnew\nline\r\n", "tab\tnew\nline\r\n"),
    ("half \ud83d emoji", "half \ufffd emoji"),
    ("\udfff", "\ufffd"),
    ("a\x1b[31mred\x1b[0m", "ared"),
    ("\x1b]0;title\x07shown", "shown"),
    ("\x1b]8;;http://x\x1b\\link", "link"),
    ("bell\x07 nul\x00 del\x7f c1\x9b", "bell nul del c1"),
    ("a\x1bMb", "ab"),
    ("right\u202eleft and é", "right\u202eleft and é"),
])
def test_clean(raw, kept):
    assert clean(raw) == kept


def test_encode_never_fails_and_leaves_valid_text_alone():
    assert encode("ok é") == "ok é".encode()
    assert encode("x\ud800y") == "x\ufffdy".encode()
    assert valid_unicode("fine") == "fine"


KEY = "sk-abcdefghijklmnopqrstuvwxy"


@pytest.mark.parametrize("text, leaked", [
    (f"full {KEY} end", True),
    (f"part {KEY[3:11]} end", True),   # exactly 8 characters of it
    (f"part {KEY[3:10]} end", False),  # 7 are not enough to tell it from chance
    ("nothing here", False),
])
def test_runs_of_a_key_are_found(text, leaked):
    assert bool(leaked_spans(text, KEY)) is leaked


def test_scrub_replaces_every_run_and_keeps_the_rest(monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", KEY)
    out = scrub(f"a {KEY[:12]} b {KEY[10:25]} c")
    assert out == "a [redacted] b [redacted] c"
    assert scrub("short keys are kept: abc") == "short keys are kept: abc"


@pytest.mark.parametrize("text, value", [
    ('{"a": 1}', {"a": 1}),
    ('Sure:\n```json\n{"a": 2}\n```\nDone.', {"a": 2}),
    ('{"s": "has ``` inside"}', {"s": "has ``` inside"}),
    ('```\n{"s": "```yaml\\nk: v\\n```"}\n```', {"s": "```yaml\nk: v\n```"}),
    ('text {"a": {"b": 3}} more', {"a": {"b": 3}}),
    ('{"bad": } then {"good": 4}', {"good": 4}),
    ('{"s": "\\u001b[2Jx\\ud800"}', {"s": "x\ufffd"}),
])
def test_extract_object(text, value):
    assert extract_object(text) == value


@pytest.mark.parametrize("text, message", [
    ("", "empty"), ("   ", "empty"), ("no braces", "no JSON object"), ("[1, 2]", "no JSON object"),
    ('{"a": ', "does not parse"), ('["x", {"a": 1}]', None),
])
def test_extract_object_refuses_with_a_reason(text, message):
    if message is None:
        assert extract_object(text) == {"a": 1}
        return
    with pytest.raises(ReplyError, match=message):
        extract_object(text)


def test_the_field_readers_say_exactly_what_is_wrong():
    from discuss.text.jsonreply import fraction, per_label, text_field, titled_list

    assert text_field({}, "k", required=False) == "" and text_field({"k": None}, "k", required=False) == ""
    assert text_field({"k": "  v "}, "k") == "v"
    for obj, message in (({"k": 3}, "'k' must be a string"), ({}, "'k' is missing or empty"),
                         ({"k": None}, "'k' is missing or empty")):
        with pytest.raises(ReplyError) as caught:
            text_field(obj, "k")
        assert str(caught.value) == message
    assert fraction({"c": 0}, "c") == 0.0 and fraction({"c": 1}, "c") == 1.0
    for bad in (True, -0.01, 1.01, "0.5", None):
        with pytest.raises(ReplyError) as caught:
            fraction({"c": bad}, "c")
        assert str(caught.value) == "'c' must be a number from 0 to 1"
    read = lambda e, lab: e.get("v")  # noqa: E731
    assert per_label([{"l": " b", "v": 2}, {"l": "a", "v": 1}], ["A", "B"], "l", read, "r {label}", "m {labels}") \
        == {"A": 1, "B": 2}
    cases = [(3, "expected a list of objects, each with a 'l'"),
             ([{"x": 1}], "unknown l '(none)'; the labels are A, B"),
             ([{"l": "C"}], "unknown l 'C'; the labels are A, B"),
             ([{"l": "A"}, {"l": "a"}], "r A"),
             ([{"l": "A"}], "m B")]
    for entries, message in cases:
        with pytest.raises(ReplyError) as caught:
            per_label(entries, ["A", "B"], "l", read, "r {label}", "m {labels}")
        assert str(caught.value) == message
    good = {"parts": [{"title": "T1", "question": "Q1"}, {"title": "T2", "question": "Q2"}]}
    assert titled_list(good, "parts", 2, 3, "question") == good["parts"]
    for obj, message in (({"parts": [{"title": "T", "question": "Q"}]}, "give 2 to 3 parts, not 1"),
                         ({"parts": [{"title": "T", "question": "Q"}] * 2}, "two parts have the same title"),
                         ({"parts": "x"}, "'parts' must be a list of objects with title and question")):
        with pytest.raises(ReplyError) as caught:
            titled_list(obj, "parts", 2, 3, "question")
        assert str(caught.value) == message


@pytest.mark.parametrize("text, message", [
    ("", "the reply was empty"),
    ("no braces at all", "the reply holds no JSON object"),
    ('["a list", 2]', "the reply holds no JSON object"),
    ('{"a": ', "the JSON does not parse: Expecting value at line 1"),
    ('note\n{"a": 1,,}', "the JSON does not parse: Expecting property name enclosed in double quotes at line 2"),
])
def test_extract_object_messages_are_exact(text, message):
    with pytest.raises(ReplyError) as caught:
        extract_object(text)
    assert str(caught.value) == message
