# DCG/nDCG exercise and autograder kit. `make help` lists the targets.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
# The benchmarks' comparison tools get an environment of their own, so that the course's .venv holds
# what the course runs on and nothing more (the comparison tools bring numba, llvmlite, pandas, orjson and more).
BENCH_VENV := .venv-bench
BENCH_BIN := $(CURDIR)/$(BENCH_VENV)/bin
# nbgrader runs the `alembic` program when it creates the gradebook: the venv's bin/ must be on PATH.
export PATH := $(BIN):$(PATH)
# Python's default is to cache compiled modules (__pycache__/, git-ignored). An environment that turns it
# off makes every command compile the kit's modules again: 0.6 s of each `python -m autograder` start and
# 0.35 s of each nbgrader command (the course's config imports the kit), hundreds of times in make test.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help venv demo check test e2e lint grade formgrader bench release sync docs lock clean clean-grades

help:  ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | awk -F '\t' '{ printf "%-13s %s\n", $$1, $$2 }'

# A course whose nbgrader_config.py sets a postgresql:// gradebook gets the driver (the `postgresql` extra);
# the tests need it anyway (they start a throw-away PostgreSQL server), so the test extra has it too. The hub
# extra: the formgrader as a JupyterHub service needs the hub's jupyterhub in this venv (and tests/hub starts one).
POSTGRESQL ?= $(shell grep -qE '^[[:space:]]*c\.CourseDirectory\.db_url[[:space:]]*=[[:space:]]*.?postgresql' nbgrader_config.py 2>/dev/null && echo 1)
comma := ,
EXTRAS := test,distributed,hub$(if $(POSTGRESQL),$(comma)postgresql)

# Only dependency files reinstall the venv: an edit of nbgrader_config.py (the exchange, a penalty, an
# extension) must not. A course that switches to PostgreSQL needs the driver once: the marker file below is
# new then, so the venv is installed again with the extra; it is a prerequisite only while the config names it.
$(VENV)/.postgresql-wanted:
	@mkdir -p "$(VENV)" && touch "$@"

$(VENV)/.installed: pyproject.toml constraints.txt $(if $(POSTGRESQL),$(VENV)/.postgresql-wanted)
	$(PYTHON) -m venv $(VENV)
	"$(BIN)/pip" install --quiet --upgrade pip
	"$(BIN)/pip" install --quiet -c constraints.txt -e '.[$(EXTRAS)]'
	touch $@

venv: $(VENV)/.installed  ## create .venv with the pinned dependencies

$(BENCH_VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	"$(BENCH_BIN)/pip" install --quiet --upgrade pip
	"$(BENCH_BIN)/pip" install --quiet -c constraints.txt -e '.[test,distributed,bench]'
	touch $@

# The system packages (bubblewrap, util-linux; for the tests chromium and PostgreSQL too): installed with
# apt-get when missing and run as root, else named in one command. SYSTEM_PACKAGES=no skips the check.
SYSTEM_PACKAGES ?= yes
system-packages-%:
	@if [ "$(SYSTEM_PACKAGES)" != no ]; then bash scripts/system_packages.sh $*; fi

demo: system-packages-demo venv  ## grade the bundled example submissions in a scratch course (demo/), print the table
	"$(BIN)/python" -m autograder demo

# The suite runs on both cores (pytest-xdist, a test file per worker at a time, so that a module's
# fixture is made once); the tests marked `serial` load both cores on purpose or judge the machine's
# load, so they run alone afterwards. Both parts always run; the target fails if either did.
TEST_WORKERS ?= 2
test: system-packages-test venv lint  ## lint and type-check, then the whole test suite on both cores, then the serial tests (CI's; make check: the quick part)
	@"$(BIN)/python" -m pytest -n $(TEST_WORKERS) --dist loadfile -m 'not serial' --durations=25; parallel=$$?; \
	"$(BIN)/python" -m pytest -m serial; serial=$$?; \
	exit $$(( parallel != 0 ? parallel : serial ))

# The contributor's default: lint, then the fast tests on both cores. FAST_TESTS leaves out every test that
# starts nbgrader, the grader or a sandbox as a program (slow), loads both cores on purpose (serial), opens a
# browser (e2e) or a JupyterHub (hub): make test runs those. Measured: 275 s of CPU time, about 140 s of wall time
# on an idle 2-core machine, 12:34 at load 8-13 (tests/README.md, "How make check and make test choose").
FAST_TESTS := not slow and not serial and not e2e and not hub
check: venv lint  ## the contributor's default: lint and type-check, then the fast tests on both cores (about 2.5 min idle)
	"$(BIN)/python" -m pytest -n $(TEST_WORKERS) --dist loadfile -m '$(FAST_TESTS)'

e2e: venv  ## only the browser tests: formgrader and the student's notebook in headless chromium (apt-get install chromium)
	"$(BIN)/python" -m pytest -m e2e

lint: venv  ## ruff (style and common bugs) and mypy (types; strict for ndcg_ref and the engine)
	"$(BIN)/ruff" check .
	"$(BIN)/mypy"

grade: venv  ## grade submitted/ into graded/ in the sandbox (python -m autograder grade; ASSIGNMENT=id: that exercise)
	"$(BIN)/python" -m autograder grade $(if $(ASSIGNMENT),--assignment "$(ASSIGNMENT)")

# The formgrader reads nbgrader_config.py (course id, exchange, gradebook) from the folder Jupyter
# starts in: this one. Jupyter refuses to run as root without --allow-root; anyone else never needs it.
formgrader: venv  ## start JupyterLab for this course (Nbgrader > Formgrader); Ctrl-C stops it
	"$(BIN)/jupyter" lab $(if $(filter 0,$(shell id -u)),--allow-root)

bench: $(BENCH_VENV)/.installed  ## in .venv-bench: the grader against nbgrader, ndcg_ref against pytrec_eval, ranx, sklearn, ir-measures, ragged files
	PATH="$(BENCH_BIN):$$PATH" "$(BENCH_BIN)/python" scripts/bench_grading.py
	"$(BENCH_BIN)/python" scripts/bench_ndcg.py
	"$(BENCH_BIN)/python" scripts/bench_ragged.py

# `make sync ASSIGNMENT=id` limits sync and release to one exercise: only an ASSIGNMENT given on make's
# command line does. One exported in the tutor's shell (left from another course or session) would
# silently leave the other exercises out of the release: it is ignored, with a note.
ONE_ASSIGNMENT := $(if $(filter command line,$(origin ASSIGNMENT)),$(ASSIGNMENT))
IGNORED_NOTE = note: ASSIGNMENT=$(ASSIGNMENT) from the environment is ignored: every exercise is done
IGNORED_ASSIGNMENT = $(if $(filter environment%,$(origin ASSIGNMENT)),$(info $(IGNORED_NOTE) (make $@ ASSIGNMENT=id does one)))

sync: venv  ## rewrite every exercise's test cells from its cases (autograder/exercises/; ASSIGNMENT=id: one)
	$(IGNORED_ASSIGNMENT)
	"$(BIN)/python" -m autograder sync $(if $(ONE_ASSIGNMENT),--assignment "$(ONE_ASSIGNMENT)")

docs: venv  ## regenerate docs/misconceptions.md from the misconception catalogue
	"$(BIN)/python" -m autograder docs

release: venv  ## sync, then regenerate release/ with nbgrader: every exercise (ASSIGNMENT=id: one)
	$(IGNORED_ASSIGNMENT)
	"$(BIN)/python" -m autograder release $(if $(ONE_ASSIGNMENT),--assignment "$(ONE_ASSIGNMENT)")

lock: venv  ## rewrite constraints.txt from the current .venv
	"$(BIN)/pip" freeze --exclude-editable --exclude ndcg-kit > constraints.txt

# What `make clean` may delete: only what a command regenerates. Student work (submitted/, exchange/)
# and grades (the gradebook, graded/, autograded/, feedback/, exports) are never among it.
REGENERABLE := demo build .pytest_cache .hypothesis .mypy_cache .ruff_cache
GRADES := graded autograded feedback gradebook.db gradebook.db-journal grades.csv moodle.csv canvas.csv

clean:  ## remove what commands regenerate (demo/, caches); never student work or grades (keeps .venv)
	rm -rf $(REGENERABLE)
	find . -path ./.venv -prune -o -path ./.venv-bench -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

clean-grades:  ## with CONFIRM=yes: delete every grade (gradebook.db with manual marks, graded/, autograded/, feedback/, exports)
	@# Without CONFIRM=yes it only says what it would delete, and exits 0: declining is the safe answer,
	@# not a failure, and a non-zero status makes make add its own "*** [Makefile: clean-grades] Error 1"
	@# line, which reads as if something broke. A script that means to delete passes CONFIRM=yes. One shell
	@# command (if/else): an exit in a recipe line would end that line only, and the next line's rm would run.
	@if [ "$(CONFIRM)" != yes ]; then \
	  found=$$(for name in $(GRADES); do [ -e "$$name" ] && printf ' %s' "$$name"; done; true); \
	  if [ -z "$$found" ]; then echo "Nothing to delete: no grades here ($(GRADES))."; else \
	  echo "Nothing was deleted. make clean-grades would delete every grade here:$$found"; \
	  echo "(manual marks and comments included; submitted/, exchange/ and .grading-secret are kept)."; \
	  echo "To delete them: make clean-grades CONFIRM=yes"; fi; \
	else \
	  echo "rm -rf $(GRADES)"; rm -rf $(GRADES); \
	fi
