"""nbgrader's ``OverwriteCells`` without its false alarm about hidden tests.

``nbgrader autograde`` puts each read-only cell back as the gradebook holds it and warns
"Attribute 'checksum' for cell … has changed!" whenever the submitted cell differs. The gradebook
holds a test cell *with* its hidden tests and the release holds it *without* them, so every test
cell with hidden tests differs in every submission, and each autograde logged one such line per
hidden group (eight), even for a student who never touched a cell: it read like tampering
(nbgrader issue #1961). :class:`OverwriteCellsQuietly` restores exactly the same cells and keeps
the warning for a cell the student really changed; a cell equal to the released one (the
gradebook's with its hidden tests removed, as ``generate_assignment`` removes them) is restored
with a debug line only. Configured in the course's ``nbgrader_config.py``
(``c.Autograde.sanitize_preprocessors``).
"""

from __future__ import annotations

from typing import Any

from nbformat import NotebookNode

from ...nbgrader_adapter import MissingEntry, OverwriteCells, remove_hidden_tests


class OverwriteCellsQuietly(OverwriteCells):  # type: ignore[misc]  # nbgrader has no type hints
    """``OverwriteCells`` that warns about a changed checksum only when the student changed the cell."""

    _as_released = False

    def preprocess_cell(self, cell: NotebookNode, resources: Any, cell_index: int) -> Any:
        self._as_released = self._equals_release(cell)
        try:
            return super().preprocess_cell(cell, resources, cell_index)
        finally:
            self._as_released = False

    def _equals_release(self, cell: NotebookNode) -> bool:
        """Whether ``cell`` is the released form of its gradebook cell (hidden tests removed)."""
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is None:
            return False
        try:
            source_cell = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
        except MissingEntry:
            return False
        released = NotebookNode(cell_type=source_cell.cell_type, source=source_cell.source, metadata={})
        try:
            remove_hidden_tests(released, parent=self)
        except RuntimeError:  # unbalanced markers: not our business here, OverwriteCells decides
            return False
        return bool(cell.cell_type == source_cell.cell_type and cell.source == released.source)

    def report_change(self, name: str, attr: str, old: Any, new: Any) -> None:
        if attr == "checksum" and self._as_released:
            self.log.debug("Cell %s is as released; its hidden tests are put back from the gradebook", name)
            return
        super().report_change(name, attr, old, new)
