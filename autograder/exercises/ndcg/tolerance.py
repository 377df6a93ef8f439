"""The tolerance policy of the DCG/nDCG exercise, written down once.

A value agrees with the definition's when it is within :data:`REL_TOL` (relative) of it: tight
enough that a result rounded to 2, 4 or 6 decimals fails, loose enough for any summation order in
double precision. It also agrees when it is within :data:`SINGLE_PRECISION_REL_TOL` and is not the
definition's value rounded to a few decimals: a DCG accumulated in ``float32`` is the right formula
off by about 1e-7, noise the course never asks about, so it keeps its points and is judged by the
formula it computes (an exponential gain summed in ``float32`` is named an exponential gain).
Rounding is a mistake of the catalogue (``rounded``); the noise of single precision is not.

The grading (:data:`autograder.exercises.ndcg.EXERCISE`) and the diagnosis (:mod:`.diagnosis`)
both use :func:`agrees`; the generated ``docs/misconceptions.md`` states the numbers.
"""

from __future__ import annotations

from ...grading import within_tolerance

#: How close a value must be to the definition's (relative).
REL_TOL = 1e-9
#: How close a value must be near 0.
ABS_TOL = 1e-12
#: How close a value that is not a rounded one may be (relative): the noise of a float32 sum of
#: up to 60 terms is well below it, a rounding to 4 decimals or fewer well above it.
SINGLE_PRECISION_REL_TOL = 1e-5


def agrees(value: float, reference: float) -> bool:
    """Whether ``value`` counts as ``reference`` under the exercise's tolerance policy.

    >>> agrees(0.7763, 0.776296), agrees(3.692535877227783, 3.692536065216308)
    (False, True)
    """
    return within_tolerance(value, reference, REL_TOL, ABS_TOL, SINGLE_PRECISION_REL_TOL)


def policy() -> str:
    """The policy in one sentence, for the generated documentation."""
    return (
        f"A value counts as right when it is within a relative {REL_TOL:g} of the definition's, or within "
        f"{SINGLE_PRECISION_REL_TOL:g} if it is not the definition's value rounded to a few decimals: the "
        "noise of a sum in single precision (`float32`) costs nothing and is judged by the formula it "
        "computes, a rounded result is the `rounded` mistake."
    )
