"""What a grading run leaves for people and programs: results files, feedback pages, the class
report (from Jinja2 templates in ``templates/``), and the scores in nbgrader's gradebook.

Everything here reads the engine's typed records (:mod:`autograder.grading.model`).
"""
