"""nbgrader settings for the DCG/nDCG course. The repository root is the course directory."""

import warnings
from contextlib import suppress
from pathlib import Path

from sqlalchemy.exc import SAWarning

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

# The course directory is the folder of this file, as an absolute path (a relative root makes every
# nbgrader command warn "root '.' is not absolute").
COURSE = Path(__file__).resolve().parent  # __file__: set by traitlets' config loader

# This course grades only through its kit (the `autograder` package). nbgrader IGNORES a config file that
# raises an exception (one ERROR line in its log) and then grades with its own Execute: the student's code
# runs as you, unsandboxed, and the hidden tests land in autograded/. So a Python without the kit (a
# JupyterHub's usual environment, a system nbgrader) stops here with one line naming the environment to
# use, exit status 2: SystemExit is no Exception, so traitlets' loader lets it through, and the command (or
# the formgrader's server) ends before it reads a submission or touches the gradebook.
# An nbgrader version the kit was not tested with stops here the same way, in the kit's first import
# (autograder/nbgrader_adapter.py: one line naming the version, exit status 2).
try:
    from autograder.course.autograde.converters import install as install_course_converters
    from autograder.course.autograde.preprocessor import SandboxedExecute, SanitiseFirstConversion, SanitiseNotebook
    from autograder.course.autograde.sandbox_guard import RecordSubmission
    from autograder.course.notebook_cells.overwrite_cells import OverwriteCellsQuietly
    from autograder.course.notebook_cells.unknown_cells import ForgetUnknownCells
    from autograder.gradebook.late_penalties import CourseLatePenalties
except Exception as kit_error:  # whatever keeps the kit from loading: missing, or a broken install
    import sys

    print(
        f"nbgrader_config.py: this course grades only through its kit, which {sys.executable} cannot import"
        f" ({type(kit_error).__name__}: {kit_error}); run nbgrader from the course's environment"
        f" ({COURSE / '.venv' / 'bin'}, made by `make venv`; docs/tutor-guide.md). Nothing was graded.",
        file=sys.stderr,
    )
    raise SystemExit(2) from None

# The course id names the course in the exchange: students' `fetch_assignment`, `submit` and
# `fetch_feedback` need the same one (`python -m autograder student-config` prints their file).
c.CourseDirectory.course_id = "ir-ranking-evaluation"
c.CourseDirectory.root = str(COURSE)

# The exchange, where release_assignment, submit, collect and release_feedback meet. The default,
# exchange/ in the course directory (git-ignored), serves a course whose tutor and students share
# one account (trying the kit, a scratch course). Students with accounts of their own must not reach
# into the course directory (it holds the hidden tests): give them a folder outside it that every
# account may write, `mkdir -m 1777 /srv/nbgrader/exchange` on one machine; on a JupyterHub it is the
# hub's shared exchange, nbgrader's default /srv/nbgrader/exchange. Change this one line, then run
# `python -m autograder student-config` again for the students (docs/tutor-guide.md, "The exchange").
c.Exchange.root = str(COURSE / "exchange")
# The default one is made here as release_assignment would make it (mode 0777), so that the formgrader
# finds it before the first release. Never fail: nbgrader IGNORES a config file that raises (see
# below) and then grades unsandboxed.
if c.Exchange.root == str(COURSE / "exchange") and not (COURSE / "exchange").exists():
    with suppress(OSError):
        (COURSE / "exchange").mkdir()
        (COURSE / "exchange").chmod(0o777)
# `nbgrader validate` (yours, the formgrader's) talks to the notebook's kernel over CurveZMQ: without keys
# ipykernel 7 prints "Kernel is running over TCP without encryption" into every validate. The students'
# file (`python -m autograder student-config`) says the same.
c.KernelManager.transport_encryption = "auto"
# nbgrader 0.9.6 under SQLAlchemy 2 prints "SAWarning: Object of type <SubmittedAssignment> not in
# session …" for every new submission; it is harmless (nbgrader adds the object itself right after).
warnings.filterwarnings("ignore", message=r"Object of type <\w+> not in session", category=SAWarning)

# The embedded SQLite gradebook next to this file (git-ignored), named by its absolute path: nbgrader opens a
# relative sqlite:/// URL in the folder a command runs in, so a formgrader started elsewhere (a JupyterHub
# service in the grader's home, with this folder as its CourseDirectory.root) made and showed a second, empty one.
c.CourseDirectory.db_url = f"sqlite:///{COURSE / 'gradebook.db'}"
# nbgrader's formgrader shows its whole configuration on Manage Assignments by default (debug), the
# gradebook's URL with any password in it included, and logs "Formgrader config is not serializable" on
# every visit (the preprocessor lists below are classes): neither is for a tutor's eyes.
c.FormgradeExtension.debug = False

# Students may delete test cells by accident (or on purpose): put them back before grading,
# otherwise a deleted test cell would simply not count.
c.OverwriteCells.add_missing_cells = True

# The released stub: keep the def line and docstring (they are outside the solution markers)
# and fail loudly until the student writes the body.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# nbgrader's own autograde (the command, the formgrader's Autograde button) grades through the
# kit's sandbox: SandboxedExecute replaces nbgrader's Execute, which would run student code as you,
# with the course directory writable, and copy the hidden tests into autograded/ and the feedback.
# The rest of nbgrader's list is unchanged: SaveAutoGrades records the scores with nbgrader's rules.
# Careful: nbgrader IGNORES a config file that fails to load (an ERROR in its log) and then runs its
# own Execute; tests/course/test_nbgrader_autograde.py loads this file and grades a hostile notebook.
from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (  # noqa: E402
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    IgnorePattern,
    LimitOutput,
    OverwriteKernelspec,
    SaveAutoGrades,
)

# nbgrader's sanitize list, with OverwriteCells warning "checksum … has changed!" only for a cell the
# student changed: nbgrader's own warned for every test cell with hidden tests in every submission
# (the release holds those cells without their hidden tests; autograder/course/notebook_cells/overwrite_cells.py).
# ForgetUnknownCells first: a cell claiming an nbgrader id the release lacks is the student's own cell, as in
# the batch (autograder/course/notebook_cells/unknown_cells.py). SanitiseNotebook last: nbgrader writes this first
# conversion to autograded/ and the sandbox then runs for seconds (or is killed): nothing the student
# wrote is ever there active, not even between the two conversions.
c.Autograde.sanitize_preprocessors = [
    ForgetUnknownCells,
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    OverwriteCellsQuietly,
    CheckCellMetadata,
    SanitiseFirstConversion,  # SanitiseNotebook, whose raw cells the second conversion escapes (once)
]

# SanitiseNotebook then makes the stored notebook inert: the release's read-only cells (with the
# release's outputs), the student's markdown, raw cells, attachments and metadata with nothing that
# could run in the formgrader's submission view or in generate_feedback's pages (docs/security.md).
c.Autograde.autograde_preprocessors = [
    SandboxedExecute,
    SanitiseNotebook,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    RecordSubmission,  # the gradebook's row for a new submission only now, with its grades (sandbox_guard.py)
    SaveAutoGrades,
    CourseLatePenalties,
    CheckCellMetadata,
]
# The grading settings of both paths: nbgrader autograde and the formgrader read them here, and so does
# `python -m autograder grade` (`make grade`), where a flag (--timeout, --cpu-seconds, …) overrides one for a run.
# Per code cell and per test call; "required": refuse to grade rather than run student code unsandboxed.
c.SandboxedExecute.timeout = 10
c.SandboxedExecute.sandbox = "required"
# The sandbox's limits are the exercise's (docs/security.md); a heavier exercise or a slower server may
# raise them, e.g. (also memory_mb, processes, scratch_mb):
# c.SandboxedExecute.cpu_seconds = 1200
# Seconds one submission's whole grading may take (default: max(60, 10 x timeout); docs/security.md):
# c.SandboxedExecute.budget_seconds = 300
# A submission folder over 250 entries or 64 MiB is refused before it is copied (nbgrader's copy is quadratic
# in the number of files): c.SandboxedExecute.max_folder_files = 250, c.SandboxedExecute.max_folder_mb = 64;
# a notebook over c.SandboxedExecute.max_notebook_mb = 8 is refused unread, as by `grade --max-notebook-mb`
# Task 1.2: by-hand answers that fit another student's list (and not the student's own) earn no follow-through
# point, and every output flags them; True gives the point anyway (they are still flagged):
# c.SandboxedExecute.credit_copied_follow_through = False

# Late work. The due date is the gradebook's: `nbgrader db assignment add ndcg --duedate="2026-12-01 17:00:00 UTC"`.
# The penalty is nbgrader's late-submission plugin's: "none" (lateness is shown, nothing taken off)
# or "zero" (a late submission scores 0). CourseLatePenalties is nbgrader's AssignLatePenalties that
# first applies the extensions below; `python -m autograder grade` runs the same step with this
# file, so both grading paths give the same penalty (docs/tutor-guide.md, "Late work").
c.LateSubmissionPlugin.penalty_method = "none"
# Extensions: per assignment, a student's own later due date (UTC unless another zone is named).
# Only the students listed here have one; remove an entry to take it back, then re-grade.
c.CourseLatePenalties.extensions = {
    "ndcg": {
        # "ada": "2026-12-08 12:00:00 UTC",
    },
}

# nbgrader copies every extra file of a submission, following links, into autograded/ and then
# feedback/, and release_feedback puts any *.html there into the exchange. The course's Autograde
# and GenerateFeedback pass on only the notebooks, what `nbgrader collect` writes and what the
# release ships, log what they drop, and read timestamp.txt safely (autograder/course/autograde/converters.py).
install_course_converters()
# Only each release notebook's feedback page reaches the exchange, never a link, and a student
# whose feedback folder lacks submission_secret.txt is skipped with a warning, not the whole release.
c.ExchangeFactory.release_feedback = "autograder.course.handback.release_feedback.CourseReleaseFeedback"
# Only inbound folders named by a valid student id are collected (the kit's rule, docs/security.md
# "Student ids"), each with one escaped log line if not; links are never followed, only folders and
# regular files are copied (a sparse file keeps its holes), and one student's failed copy costs no one
# else. One collect run copies at most c.CourseCollect.max_total_mb MiB (default 1024), the gradebook's
# students first, so ids made up in the inbound exchange cannot fill the disk nor crowd out the class.
c.ExchangeFactory.collect = "autograder.course.autograde.collect.CourseCollect"
# `nbgrader export` quotes every cell and keeps any cell from being a spreadsheet formula (nbgrader's
# own CSV exporter joins fields with "," and quotes nothing: a name with a comma forges a row).
c.ExportApp.plugin_class = "autograder.course.handback.safe_export.SafeCsvExportPlugin"
