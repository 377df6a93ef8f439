"""nbgrader settings for the DCG/nDCG course. The repository root is the course directory."""

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

# One course, one assignment; the course id only labels exports and the formgrader.
c.CourseDirectory.course_id = "ir-ranking-evaluation"
c.CourseDirectory.root = "."
# The embedded SQLite gradebook next to this file (git-ignored).
c.CourseDirectory.db_url = "sqlite:///gradebook.db"

# Students may delete test cells by accident (or on purpose): put them back before grading,
# otherwise a deleted test cell would simply not count.
c.OverwriteCells.add_missing_cells = True

# A test cell that runs longer than this is stopped and scores 0 (all our tests take milliseconds).
c.ExecutePreprocessor.timeout = 30

# The released stub: keep the def line and docstring (they are outside the solution markers)
# and fail loudly until the student writes the body.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
