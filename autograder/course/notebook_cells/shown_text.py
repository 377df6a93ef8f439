"""How much of a student's cell text a stored notebook shows: bounded, so the pages that render it stay quick.

The formgrader's grading view renders ``autograded/<student>/<assignment>/<notebook>.ipynb`` with
nbconvert (pygments for code, mistune for markdown, an anchor per heading) synchronously in the
tutor's Jupyter server, whose one event loop then serves nothing else: no other tab, no kernel. The
cost grows with the text, several times faster than reading it. Measured with nbgrader 0.9.6's
``formgrade`` template (the red team's third round): a code cell of 7.8 MB of comment lines took
42.6 s of CPU and 1.1 GB of memory per view, and markdown of setext headings (``a`` over ``=``)
about 80 µs a character (a notebook within the 8 MiB limit holds minutes of it), every time the
tutor opens the submission or steps to it with Next. An honest student's cells hold a few hundred
characters.

So the last sanitising pass (:func:`.notebook_cells.sanitise.sanitise_notebook`) keeps of each student cell at most
:data:`MAX_SHOWN_CELL_CHARS` characters, and of the student's *own* cells (those without a
release's ``grade_id``: cells they added, code, markdown or raw) at most
:data:`MAX_SHOWN_EXTRA_CHARS` together, in the notebook's order; the release's answer cells (their
``dcg``, ``ndcg``, by-hand answers and id) always get their own bound, so no added cell can hide
the graded code from the tutor. What is cut is replaced by one line saying how much was cut and
where all of it is: the submitted notebook (``submitted/``), which is never changed, and which the
grading, the copying report and every re-grade read whole. Only the stored, shown copy is cut: the
grade was computed before, from every character.
"""

from __future__ import annotations

#: Characters of one student cell shown (an honest cell is a few hundred; about 1.3 s of the
#: formgrader's CPU time for markdown of the costliest shape, far less for code).
MAX_SHOWN_CELL_CHARS = 16_384
#: Characters of all the student's added cells together (cells without a release's ``grade_id``).
MAX_SHOWN_EXTRA_CHARS = 32_768

_NOTE = ("{cut:,} more characters of this cell are not shown here, so that the page opens quickly; "
         "the submitted notebook in submitted/ holds all of it, and it was graded whole")


def cut_note(cut: int, kind: str) -> str:
    """The line that replaces ``cut`` characters of a ``kind`` ("code", "markdown", "raw") cell.

    A comment in code (the cell still reads as Python), a paragraph of its own in markdown; no
    character of it is markup (no ``<``, bracket or backtick), so it reads the same in every page.

    Examples
    --------
    >>> cut_note(1234, "code").splitlines()[1][:60]
    '# … 1,234 more characters of this cell are not shown here, s'
    """
    text = _NOTE.format(cut=cut)
    return f"\n# … {text}\n" if kind == "code" else f"\n\n… {text}\n"


class ShownBudget:
    """What is left of :data:`MAX_SHOWN_EXTRA_CHARS` while one notebook's cells are sanitised in order."""

    def __init__(self, extra: int = MAX_SHOWN_EXTRA_CHARS, per_cell: int = MAX_SHOWN_CELL_CHARS) -> None:
        self.extra = extra
        self.per_cell = per_cell

    def shown(self, source: str, kind: str, answer_cell: bool) -> tuple[str, int]:
        """The part of ``source`` shown, and how many characters were cut (0: all of it is shown).

        Parameters
        ----------
        source : str
            The student's text of the cell, before it is made inert (the sanitiser works on what is shown).
        kind : str
            The cell's type, for :func:`cut_note` (added by the caller, after sanitising).
        answer_cell : bool
            The cell carries a release's ``grade_id`` (an answer cell): not charged to the added cells' share.
        """
        room = self.per_cell if answer_cell else min(self.per_cell, self.extra)
        kept = source[:room]
        if not answer_cell:
            self.extra -= len(kept)
        return kept, len(source) - len(kept)
