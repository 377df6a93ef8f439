"""The by-hand task as one feature: a variant per student, its salt, its paper sheets, its copying report.

Above the course layer (it uses the course's configuration, roster and stored results) and below the
pipeline and the command line. It reaches an exercise only through the by-hand hook its answered
part carries (:class:`~autograder.grading.ByHand`): it names no exercise.
"""
