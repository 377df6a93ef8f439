"""The compiled record: what a student's code gave to ``compile``/``exec``/``eval`` while its cells ran.

The copying report compares it beside the code cells: a copy hidden in a spelling the report does
not read (parts joined at run time, a list of byte values, base32) is compiled as code all the same.
It is kept with the student's result (:class:`~.model.StudentResult`), so both grading paths store it
(``results.json`` and the resume cache; ``<notebook>.grader.json`` beside the autograded notebook).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..sandbox import CellRecord
from ..sandbox.runs.protocol import MAX_COMPILED, MAX_COMPILED_CHARS, MAX_COMPILED_TOTAL, MAX_DROPPED


def code_digest(cells: Sequence[str]) -> str:
    """The SHA-256 of a notebook's code cells (the student's, as the grader runs them), in hex."""
    return hashlib.sha256(json.dumps(list(cells)).encode("utf-8", "surrogatepass")).hexdigest()


_DIGEST = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class CompiledCode:
    """The texts the student's code gave to ``compile``/``exec``/``eval`` while its cells ran, for the copying report.

    Recorded by the sandbox's runner in the process that holds no hidden input, before any call
    (:mod:`autograder.sandbox.inside.runner`): the student's data, untrusted, never run, bounded
    (:data:`~autograder.sandbox.runs.protocol.MAX_COMPILED` ...) wherever it is read.
    """

    texts: tuple[str, ...]
    #: How many texts the bounds left out (a notebook that compiles thousands: itself worth a look).
    dropped: int
    #: :func:`code_digest` of the code cells that ran: the record belongs to that code only.
    cells_sha256: str

    @classmethod
    def of(cls, records: dict[int, CellRecord], cells: Sequence[str]) -> CompiledCode:
        """The record of the cells' reports (in cell order) for the code ``cells``."""
        ordered = [records[index] for index in sorted(records)]
        return cls.checked([text for record in ordered for text in record.compiled],
                           sum(record.dropped for record in ordered), code_digest(cells))

    @classmethod
    def checked(cls, texts: list[str], dropped: int, digest: str) -> CompiledCode:
        """The record within its bounds (the texts beyond them counted as dropped)."""
        kept: list[str] = []
        room = MAX_COMPILED_TOTAL
        for text in texts[:MAX_COMPILED]:
            text = text[:MAX_COMPILED_CHARS]
            if len(text) <= room:
                kept.append(text)
                room -= len(text)
        return cls(tuple(kept), min(dropped + len(texts) - len(kept), MAX_DROPPED), digest)

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {"texts": list(self.texts), "dropped": self.dropped, "cells_sha256": self.cells_sha256}

    @classmethod
    def from_json(cls, data: Any) -> CompiledCode:
        """Read back what :meth:`to_json` wrote, types checked and bounds applied again; ``ValueError`` otherwise."""
        if not isinstance(data, dict):
            raise ValueError("a compiled record is an object")
        texts, dropped, digest = data.get("texts"), data.get("dropped"), data.get("cells_sha256")
        if type(texts) is not list or any(type(text) is not str for text in texts):
            raise ValueError("a compiled record's texts are a list of texts")
        if type(dropped) is not int or dropped < 0 or type(digest) is not str or not _DIGEST.fullmatch(digest):
            raise ValueError("a compiled record has a count and a digest")
        return cls.checked(texts, dropped, digest)
