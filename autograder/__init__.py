"""Grading package of the DCG/nDCG kit: test cases, notebook test cells, course helpers."""
