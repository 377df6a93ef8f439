"""nbgrader's gradebook, one feature: opening it, writing scores, late penalties, marks read back.

Inner order, lowest first: ``database`` (opening it safely) < ``rows`` (bulk rows) <
``scores`` (recording a batch); ``url`` (which gradebook a course uses), ``assignment_cells``;
``recorded_time`` < ``late_penalties`` < ``read_back`` (marks and lateness); ``update`` (the step
after grading) uses all of them. Below ``course/``, above ``output/``.
"""
