"""The Jinja2 environment of the pages: templates in ``templates/``, autoescaping always on.

A tutor can reword a page by editing its ``.html.j2`` file; every value a template shows is
escaped unless it is marked as trusted markup (:class:`markupsafe.Markup`) by the code. The
filter ``message`` shows a message with its `code` spans as ``<code>`` (escaped first, see
:func:`.markup.message_html`).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from .markup import message_html
from .safe_text import printable, shown_student

TEMPLATES = Path(__file__).with_name("templates")


@functools.cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,  # on for every template, whatever its file name
        undefined=jinja2.StrictUndefined,  # a misspelt field fails loudly instead of vanishing
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # text a student chose may hold control characters or bytes that are not UTF-8: show them as escapes
        finalize=_printable,
    )
    environment.filters["message"] = message_html
    # a student's id: a refused folder's is escaped already (finalize would escape its backslashes again)
    environment.filters["student_id"] = lambda student: Markup.escape(shown_student(student))
    return environment


def _printable(value: Any) -> Any:
    return printable(value) if isinstance(value, str) and not isinstance(value, Markup) else value


def render(name: str, **context: Any) -> str:
    """Render the template ``name`` with ``context``."""
    return _environment().get_template(name).render(**context)
