"""The fast reader of our own files reads back exactly what the writer wrote, as ruamel does."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from discuss.store import yamlio, yamlwrite

# Words that YAML 1.1, ruamel or PyYAML might take for something other than a string.
TRICKY = ["yes", "no", "on", "off", "y", "n", "~", "null", "Null", "true", "False", "1_000", "0o17", "017",
          "0x1F", "0b101", "1:20", "12:30:00", "2026-01-01", "2026-01-01T00:00:00Z", "1e5", "1.5e-5", ".inf",
          "-.inf", ".nan", "+1", "-0", "1.", ".5", "=", "<<", "", " ", "a: b", "- x", "#c", "'q'", '"d"', "!tag",
          "&a", "*a", "|", ">", "%", "@", "`", "\t", "line\nbreak", "tail\n", "\u2028", "é"]
scalars = (st.sampled_from(TRICKY) | st.text(max_size=20) | st.integers() | st.booleans() | st.none()
           | st.floats(allow_nan=False))
keys = st.sampled_from(TRICKY[:30]) | st.text(min_size=1, max_size=10)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
                      max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(keys, values, max_size=6))
@example({"k": "-_", "._": ["+_", "_1", "-1_", "._5"]})  # once written plain, then refused by ruamel
def test_what_we_write_reads_back_the_same_both_ways(data):
    text = yamlwrite.dump(data)
    assert yamlio.load(text, written=True) == yamlio.load(text) == data  # ours, ruamel, the original
    assert yamlio._native_document(text) == data  # read by the fast path itself, not the fallback
    assert yamlio._plain(text) in (None, data)  # and line by line where it is plain
    assert yamlwrite.dump(yamlio.load(text, written=True)) == text  # saving unchanged data changes no byte


def test_plain_words_of_yaml_1_1_stay_words():
    text = ("a: yes\nb: on\nc: 1_000\nd: 2026-01-01\ne: 1:20\nf: 0o17\ng: true\nh: 12\ni: 1.5\nj: null\nk: 017\n"
            "l: -.inf\nm: .inf\nn: 0x1F\no: FALSE\np: ~\n")
    assert yamlio._native_document(text) == yamlio.load(text, written=True) == {
        "a": "yes", "b": "on", "c": "1_000", "d": "2026-01-01", "e": "1:20", "f": 15, "g": True, "h": 12, "i": 1.5,
        "j": None, "k": 17, "l": float("-inf"), "m": float("inf"), "n": 31, "o": False, "p": None}


def test_a_broken_file_is_worded_by_the_full_reader():
    with pytest.raises(ValueError, match="line"):
        yamlio.load("a: [1, 2\nb: c\n", written=True)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(keys, values, max_size=6))
def test_the_tags_kept_for_short_texts_write_what_the_resolver_would(data):
    import yaml

    dumper = yamlwrite._dumper()

    class Uncached(dumper):  # type: ignore[misc,valid-type]
        def resolve(self, kind, value, implicit):
            return dumper.__mro__[1].resolve(self, kind, value, implicit)

    yamlwrite.dump({"warm": TRICKY})  # every tricky word's tags kept, whichever way asked first
    expected = yaml.dump(yamlwrite._prepare(data), Dumper=Uncached, sort_keys=False, allow_unicode=True, width=4096,
                         default_flow_style=False)
    assert yamlwrite.dump(data) == expected


@pytest.mark.parametrize("text", [
    "a: !!binary aGVsbG8=\n",  # tags a file of ours never holds: never built by the fast path
    "a: !!set {x: null}\n",
    "a: !!python/object:os.system {}\n",
    "a: !!timestamp 2026-01-01\n",
    "a: 1\na: 2\n",  # a duplicate key, of any type
    "1: x\n1: y\n",
    "? [1, 2]\n: x\n",  # a key that cannot be a key
])
def test_what_no_file_of_ours_holds_is_left_to_the_full_reader(text):
    import yaml

    with pytest.raises(yaml.YAMLError):
        yamlio._native_document(text)
    try:
        read = yamlio.load(text, written=True)
    except ValueError:
        return  # refused, in words
    assert read == yamlio.load(text)  # else read as ruamel's safe loader reads any file


def test_a_word_quoted_in_one_place_and_plain_in_another_is_read_as_each():
    """The tags kept for short texts are kept apart for plain and quoted text, in whichever order they come."""
    for text in ("a: '12'\nb: 12\nc: \"true\"\nd: true\ne: 'null'\nf: null\n",
                 "b: 12\na: '12'\nd: true\nc: \"true\"\nf: null\ne: 'null'\n"):
        assert yamlio.load(text, written=True) == {"a": "12", "b": 12, "c": "true", "d": True, "e": "null", "f": None}


def test_what_the_line_reader_gives_is_the_callers_own():
    """Values it keeps for the next file are never shared: a caller may change what it was given."""
    first = yamlio.load("a: []\nb: {}\nc: [x, y]\nd:\n- e\n")
    first["a"].append(1), first["b"].update(z=1), first["c"].append("z"), first["d"].append("f")
    assert yamlio.load("a: []\nb: {}\nc: [x, y]\nd:\n- e\n") == {"a": [], "b": {}, "c": ["x", "y"], "d": ["e"]}


@pytest.mark.parametrize("text", ["a: 1\na: 2\n", "a:\n  b: 1\n  b: 2\n", "a: b\n  c\n", "a:\n  b:\n    c: 1\n",
                                  "a:\n- b\n  c: d\n", "- a\n", "a: 'b' # c\n", "a: yes\n", "A: b\n"])
def test_what_is_not_a_mapping_of_plain_values_is_left_to_a_parser(text):
    assert yamlio._plain(text) is None
