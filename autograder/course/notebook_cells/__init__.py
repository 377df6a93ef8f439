"""The notebook's cells: the generated test cells, sanitising, nbgrader preprocessors for
unknown and overwritten cells.
"""
