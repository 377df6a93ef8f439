"""Which calls a submission's test cases make, and how their ids map back to the cases.

The runner only ever sees call ids, function names and inputs; the plan keeps what each id is for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...sandbox import CallOrder
from .exercise import Case, Exercise, TestGroup


@dataclass(frozen=True)
class CallPlan:
    """Which call ids belong to which case (the runner only ever sees the ids and inputs)."""

    call_id: int
    group: TestGroup
    case: Case
    #: The ids of :attr:`Case.extra_calls`, in that order.
    extra_ids: tuple[int, ...] = ()

    @property
    def ids(self) -> tuple[int, ...]:
        """Every call id of the case."""
        return (self.call_id, *self.extra_ids)


def plan_calls(exercise: Exercise, first_id: int = 0, groups: Sequence[TestGroup] | None = None) -> list[CallPlan]:
    """The calls of every test case (their extra calls included), numbered from ``first_id``.

    ``groups`` are the exercise's groups with one submission's drawn instances
    (:func:`~.draws.drawn_groups`); by default the fixed cases alone.
    """
    plan: list[CallPlan] = []
    next_id = first_id
    for group in exercise.groups if groups is None else groups:
        for case in group.cases:
            extra = tuple(range(next_id + 1, next_id + 1 + len(case.extra_calls)))
            plan.append(CallPlan(next_id, group, case, extra))
            next_id += 1 + len(extra)
    return plan


def next_call_id(plan: list[CallPlan]) -> int:
    """The first id after every call of ``plan``."""
    return max((max(p.ids) for p in plan), default=-1) + 1


def call_orders(plan: list[CallPlan]) -> list[CallOrder]:
    """The cases' own calls as sent to the runner: ids, function names and inputs, nothing else."""
    return [CallOrder(p.call_id, p.case.call.function, p.case.call.args) for p in plan]


def extra_call_orders(plan: list[CallPlan]) -> list[CallOrder]:
    """The cases' extra calls (companions, own-ratio calls), to be made in a process of their own.

    A function that keeps state between calls could otherwise answer a companion with whatever
    its case's call returned, and every property would hold.
    """
    return [
        CallOrder(call_id, call.function, call.args)
        for p in plan
        for call_id, call in zip(p.extra_ids, p.case.extra_calls, strict=True)
    ]


def skip_rest_of_group(plan: list[CallPlan]) -> Callable[[int], list[int]]:
    """For a call that timed out: the other calls of its group (the group has failed already)."""
    members: dict[str, list[int]] = {}
    for p in plan:
        members.setdefault(p.group.grade_id, []).extend(p.ids)
    group_of = {call_id: p.group.grade_id for p in plan for call_id in p.ids}

    def others(call_id: int) -> list[int]:
        return [other for other in members.get(group_of.get(call_id, ""), []) if other != call_id]

    return others
