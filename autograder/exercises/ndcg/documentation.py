"""The generated documentation of the catalogue (``docs/misconceptions.md``, ``python -m autograder docs``).

Everything on the page comes from the tables: the mistakes and their mutants (:mod:`.catalogue`),
the groups and their points (:mod:`.cases`), the pairs of mistakes that cost more or less than
their two costs together (:data:`.pairs.PAIR_COSTS`) and the tolerance policy (:mod:`.tolerance`).
"""

from __future__ import annotations

from .byhand.marking import STEPS
from .cases import GROUPS
from .catalogue import CATALOGUE, CORRECT_DCG, CORRECT_NDCG
from .pairs import PAIR_COSTS
from .tolerance import policy


def points_split() -> list[str]:
    """The notebook's points: Task 1.2 by hand (its steps) and Tasks 1.3–1.4 in code (the test groups)."""
    by_hand = sum(step.points for step in STEPS)
    code = sum(group.points for group in GROUPS)
    steps = ", ".join(f"{step.description.split(' (')[0]} {step.points:g}" for step in STEPS)
    return [
        "## Points of the notebook",
        "",
        f"`ndcg.ipynb` is worth {by_hand + code:g} points: Task 1.2 by hand {by_hand:g} ({steps}; graded step by step",
        f"with follow-through, before the code) and Tasks 1.3–1.4 in code {code:g}, in {len(GROUPS)} test groups",
        "(below). The by-hand mistakes carry the catalogue's IDs; the tutor's guide says what each costs.",
    ]


def points_table() -> list[str]:
    """The documentation's table of the test groups each mutant loses, and its points (from :data:`CATALOGUE`)."""
    columns = [(group.grade_id.removeprefix("test_"), group) for group in GROUPS]
    lines = [
        "## Points each mistake costs",
        "",
        "One mistake costs the groups about what it gets wrong, no more: the contract groups ask only for",
        "a number and an unchanged list; the cut-off and grade groups are properties of the student's own",
        "function that hold whatever discount it uses; an `ndcg` that divides the student's own `dcg`",
        "values as the definition says keeps its points when that `dcg` is wrong. Such evidence counts only",
        "if it says something: not when every value is 0, nor when it matches a `dcg` that gives a ranking",
        "and its ideal the same value; each property group also holds a case no constant meets. The",
        "mutation tests grade every mutant and check that it loses exactly the groups marked here (✗).",
        "",
        "| mistake | mutant | " + " | ".join(f"`{name}` ({group.points:g})" for name, group in columns) + " | lost |",
        "|---|---|" + "---|" * len(columns) + "---|",
    ]
    for item in CATALOGUE:
        for mutant in item.mutants:
            lost = item.groups_lost(mutant)
            marks = " | ".join("✗" if group.grade_id in lost else "" for _, group in columns)
            points = sum(group.points for _, group in columns if group.grade_id in lost)
            lines.append(f"| `{item.id}` | {mutant.name} | {marks} | {points:g} |")
    return lines


def pairs_table() -> list[str]:
    """The documentation's table of the pairs of mistakes that cost other groups than their union."""
    points = {group.grade_id: group.points for group in GROUPS}
    lines = [
        "## Two mistakes at once",
        "",
        "Two mistakes made together cost the union of their groups: the all-pairs mutation check grades every",
        "pair of the mistakes above (a dcg mistake with an ndcg mistake, and a second mistake put into one",
        "function: a result rounded, printed or returned as an array, a crash on k beyond the list, the zero",
        "check left out, the input sorted in place, one-document lists or grades above 2 refused) in the",
        "sandbox and checks it. These pairs are the exceptions, and why:",
        "",
        "| mistakes | groups lost | points lost | named | why |",
        "|---|---|---|---|---|",
    ]
    for cost in PAIR_COSTS.values():
        first, second = cost.pair
        if cost.lost is None:
            lost, lost_points = "the union", ""
        else:
            lost = ", ".join(f"`{g.removeprefix('test_')}`" for g in sorted(cost.lost))
            lost_points = f"{sum(points[g] for g in cost.lost):g}"
        named = "both" if cost.named is None else ", ".join(f"`{m}`" for m in cost.named)
        lines.append(f"| `{first}` + `{second}` | {lost} | {lost_points} | {named} | {cost.why} |")
    return lines


def catalogue_markdown() -> str:
    """The documentation page of the catalogue (``docs/misconceptions.md``)."""
    lines = [
        "# Known DCG/nDCG mistakes the grader recognises",
        "",
        "Generated from `autograder/exercises/ndcg/catalogue.py` by `python -m autograder docs`; do not edit.",
        "The grader recognises these from the *behaviour* of a student's functions on probe inputs,",
        "never from the source text, and reports the IDs in `results.json` (`diagnoses`).",
        "",
        "| ID | mistake | what the feedback tells the student |",
        "|---|---|---|",
    ]
    for item in CATALOGUE:
        lines.append(f"| `{item.id}` | {item.title} | {item.explanation} |")
    lines += ["", "## Tolerance", "", policy(), "", *points_split(), "", *points_table(), "", *pairs_table(), ""]
    lines += ["## Mutants", ""]
    lines += ["Each mistake is reproduced by these solutions, which the test suite grades:", ""]
    for item in CATALOGUE:
        for mutant in item.mutants:
            pairs = ((mutant.dcg, CORRECT_DCG), (mutant.ndcg, CORRECT_NDCG))
            changed = [code for code, correct in pairs if code != correct]
            lines += [f"### `{item.id}`: {mutant.name}", "", "```python", *changed, "```", ""]
    return "\n".join(lines)
