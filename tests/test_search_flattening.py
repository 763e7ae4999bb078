"""The copy search reads with its wrappers taken out: the theme's search makes the same sections of it.

The theme's own parser is the judge: for any fragment of HTML, after any page text that came before it
(headings nested or left open, text, unclosed elements) and before any that follows, the sections it
makes of the page with the fragment flattened are those it makes with the fragment as it was, to the
character, or it fails on both.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from material.plugins.search.plugin import Parser

from discuss.site.searchable import flattened

TEXTS = st.sampled_from(["word", " ", "\n", "  ", "two words", "&amp;", "&nbsp;", "x\ny", "\t", " lead",
                         "trail ", "&lt;b&gt;", "&#10;", "&amp", "amp;", "&"])
VOIDS = st.sampled_from(["<br>", "<hr>", '<img src="x">', "<br/>", "<wbr>"])
NAMES = st.sampled_from(["div", "span", "em", "p", "details", "summary", "table", "td", "li", "ul", "pre", "code",
                         "a", "section", "h2", "h3", "h4"])
ATTRIBUTES = st.sampled_from(["", ' id="s"', ' class="x"', ' class="headerlink"', ' class="linenodiv"',
                              ' data-search-exclude', ' id="t" class="x"', ' title="a > b"'])


def _element(inner):
    return st.tuples(NAMES, ATTRIBUTES, st.lists(inner, max_size=4)).map(
        lambda x: f"<{x[0]}{x[1]}>{''.join(x[2])}</{x[0]}>")


FRAGMENTS = st.recursive(st.one_of(TEXTS, VOIDS), _element, max_leaves=30).map(str)
BEFORE = st.sampled_from(["", "<h1 id=t>T</h1>", "<div><h1 id=t>T</h1></div>", "<div><div><h3 id=q>Q</h3>",
                          "<p>intro", "<section><h2 id=z>Z</h2></section>text", "<div>", "<pre>", "<h2 id=o>",
                          "<ul>", "<div><h2 id=a>A</h2><div><h4 id=b>B</h4></div></div>"])
AFTER = st.sampled_from(["", "tail", "<p>after</p>", "</div>more", " x", "\n", "<h2 id=e>E</h2>end"])


def sections(html: str) -> list[tuple] | str:
    parser = Parser()
    try:
        parser.feed(html)
        parser.close()
    except ValueError:  # the theme's parser fails on some nestings; then it must fail on both
        return "failed"
    return [(s.el.tag, s.id, "".join(s.title), "".join(s.text)) for s in parser.data]


@settings(max_examples=800, deadline=None)
# A permalink around a heading's text: the search leaves its words out of the section's title.
@example(before="<h3 id=q>Q</h3>", fragments=['<div><a class="headerlink"><span><h3>x</h3></span></a>y</div>'],
         after="")
@given(before=BEFORE, fragments=st.lists(FRAGMENTS, min_size=1, max_size=3), after=AFTER)
def test_the_search_makes_the_same_sections_of_the_flattened_copy(before, fragments, after):
    fragment = "".join(fragments)
    assert sections(before + flattened(fragment) + after) == sections(before + fragment + after)


def test_a_reply_loses_its_wrappers_and_keeps_its_words():
    reply = ('<div class="discuss-reply" role="tabpanel" id="r-1"><p class="discuss-reply-head"><strong><bdi>Ada'
             '</bdi></strong> <span class="discuss-score">score 2</span></p><div class="discuss-reply-text"><p>Some '
             '<em>stressed</em> words</p></div></div>')
    assert flattened(reply) == ('<div class="discuss-reply" role="tabpanel" id="r-1"><p class="discuss-reply-head">'
                                'Ada<br> <br>score 2</p><p>Some stressed words</p></div>')


def test_what_is_not_plain_balanced_html_is_left_as_it_is():
    for odd in ("<div><p>open</div>", "<div>a<!-- note --></div>", "<div><script>x</script></div>",
                "<div>1 < 2</div>", '<div title="a<b">x</div>', "<div></span></div>"):
        assert flattened(odd) == odd
