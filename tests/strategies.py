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
