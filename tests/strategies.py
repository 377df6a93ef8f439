"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

#: Integer grades 0..3, as in TREC-style graded judgements.
grades = st.integers(min_value=0, max_value=3)

#: Fractional grades, e.g. averaged judgements.
fractional_grades = st.floats(min_value=0.0, max_value=4.0, allow_nan=False, allow_infinity=False)

#: A ranked list of integer grades (possibly empty).
rankings = st.lists(grades, min_size=0, max_size=30)

#: A ranked list with at least one document.
nonempty_rankings = st.lists(grades, min_size=1, max_size=30)

#: A ranked list of integer or fractional grades.
any_rankings = st.lists(st.one_of(grades, fractional_grades), min_size=0, max_size=30)

#: A cut-off: None (whole list) or a positive integer that may exceed the list length.
cutoffs = st.one_of(st.none(), st.integers(min_value=1, max_value=40))

#: Pieces of markdown and HTML that an attacker would combine: tags, handlers, schemes, entities,
#: link and reference syntax, math and code spans.
_markup_pieces = st.sampled_from([
    "<", ">", "</", "<!--", "-->", "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>", "<script>", "</script>",
    "<iframe srcdoc='<script>x</script>'>", "<a href='javascript:x'>", "<b>", "</b>", "<sub>", "<br/>",
    "<B onclick=x>", "<details open ontoggle=x>", "javascript:", "JaVaScRiPt:", "jav&#x09;ascript&colon;",
    "data:text/html,", "vbscript:", "&#106;avascript:", "&lt;", "&amp;", "&#60;", "[", "]", "(", ")", "](", "]:",
    "![", "[x]: ", "\n", "\n\n", " ", "    ", "`", "```", "$", "$$", "\\", "\\href{javascript:x}{y}", "\"", "'", "=",
    "http://example.org", "mailto:a@b", "#top", "attachment:a.png", "text", "onerror=", "\t", "\x00",
])

#: Markdown as a hostile student would write it.
hostile_markdown = st.lists(st.one_of(_markup_pieces, st.text(max_size=3)), max_size=40).map("".join)
