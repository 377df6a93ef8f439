"""Precision@k as a second exercise's package source, for the tests that add one to a copy of the kit.

P@k = |{i <= k : rel_i > 0}| / k over the top k of a ranking (the lecture's other measures). The
reference function and the two test groups are the same wherever a test adds the exercise; what each
test adds around them (an answered part, its imports) is its own.
"""

#: The package's reference function and groups, as source text (no braces: it fits an f-string template).
REFERENCE_AND_GROUPS = '''def reference(call: Call) -> float:
    rels, k = call.args
    return sum(1 for rel in rels[:k] if rel > 0) / k


GROUPS = (
    TestGroup("test_precision_example", "precision", "precision of a small ranking", 1.0, True,
              (Case(Call("precision", ((1, 0, 2, 1, 0), 5)), "example ranking"),)),
    TestGroup("test_precision_cutoff", "precision", "precision divides by k", 2.0, False,
              (Case(Call("precision", ((3, 1, 0), 2)), "k inside the list", constructed=True),
               Case(Call("precision", ((1, 2), 4)), "k beyond the list", constructed=True))),
)
'''
