"""The nbgrader course around the exercises: nbgrader's commands, the notebook's test cells, example
notebooks and the demo."""
