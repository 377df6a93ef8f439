"""Notebooks made inert: nothing a student wrote is active in a page a tutor or a student opens.

An autograded notebook is rendered by the formgrader's submission view and by nbgrader's
``generate_feedback`` (nbconvert's HTML exporter, whose templates print markdown, raw cells, some
outputs and some metadata without escaping), and a tutor may open it in JupyterLab. Before it is
stored, :func:`sanitise_notebook` rewrites it so that every cell is either the release's (trusted)
or inert:

- a cell whose ``grade_id`` names a read-only (locked) cell of the release gets the release's
  source, attachments, metadata and outputs (a test cell's outputs are the grader's outcomes);
- every other cell keeps nbgrader metadata only where its ``grade_id`` is the release's (the
  release's copy), and no other metadata (``tags`` and ``grade_id`` reach HTML attributes unescaped);
- student markdown keeps its text, but every ``<`` that could open a tag is escaped except a few
  attribute-less formatting tags, links and images lose a scheme other than ``http(s)``,
  ``mailto`` and ``attachment``, and MathJax's ``\\href``/``\\url``/``\\require`` are disarmed;
  attachments keep only PNG, JPEG and GIF data;
- raw cells lose their MIME type and are escaped (nbconvert would copy them into the page verbatim); in
  a notebook that is sanitised again (nbgrader's first conversion, then its second) the first pass
  gives them the MIME type ``text/plain`` instead, which no HTML page shows, and only the last escapes
  them, so an honest ``a < b`` is escaped once (escaping twice grew a raw cell of ``&`` ninefold);
- a notebook's link destinations are checked up to :data:`MAX_CHECKED_LINKS` in all, and every one
  beyond is disarmed unchecked: each check decodes entities in a window of the text, and a cell of
  ``](&AMP`` repeated (1.3 million checks in 7.8 MB) took minutes of the grader's own CPU per student;
- outputs keep plain text, streams, errors, PNG/JPEG/GIF images and HTML cleaned with nbconvert's
  :class:`~nbconvert.preprocessors.SanitizeHTML` (bleach) with a strict allowlist (no link, no
  source, no style); JavaScript, SVG, widget views and anything else are dropped;
- the notebook's metadata keeps only the release's ``kernelspec`` and ``language_info`` (no
  ``widgets`` state, which nbconvert would hand to the widget manager);
- the last pass keeps a bounded part of each student cell's text, with a line saying what was cut
  (:mod:`.shown_text`: the formgrader renders the stored notebook in the tutor's server).
"""

from __future__ import annotations

import copy
import html
import re
from dataclasses import dataclass
from typing import Any

from nbconvert.preprocessors.sanitize import SanitizeHTML
from nbformat.notebooknode import NotebookNode
from nbformat.v4 import nbformat_minor as NBFORMAT_MINOR
from nbformat.v4.convert import upgrade

from .generated_cells import grade_id, nbgrader_metadata
from .notebook_nodes import new_cell, new_output
from .shown_text import ShownBudget, cut_note

#: Tags kept in student HTML (outputs): text structure and tables, never a link, a source or a style.
HTML_TAGS = frozenset({
    "b", "i", "em", "strong", "code", "pre", "p", "br", "hr", "sub", "sup", "span", "div", "ul", "ol", "li",
    "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "caption",
})
HTML_ATTRIBUTES = {"*": ["class", "title"], "td": ["colspan", "rowspan"], "th": ["colspan", "rowspan"]}
#: Tags a markdown cell may keep, and only without attributes.
MARKDOWN_TAGS = frozenset({"b", "i", "em", "strong", "code", "sub", "sup", "br", "u", "s", "del", "hr", "p"})
#: Schemes a markdown link or image may use; a destination without a scheme is relative and kept.
LINK_SCHEMES = frozenset({"http", "https", "mailto", "attachment"})
#: Image data kept: raster formats only (an SVG is a document that may hold script).
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif"})
#: Output MIME types shown as they are (besides images); text/html is cleaned, everything else dropped.
TEXT_TYPES = frozenset({"text/plain", "text/latex"})
#: Notebook metadata taken from the release.
NOTEBOOK_METADATA = ("kernelspec", "language_info")

#: A ``<`` that an HTML parser would read as markup (a tag, an end tag, a comment, a declaration).
_MARKUP = re.compile(r"<(?=[A-Za-z/!?])")
#: An attribute-less formatting tag that may stay.
_KEPT_TAG = re.compile(r"</?([A-Za-z]+)\s*/?>")
#: Where a markdown link or image destination starts: ``](`` (inline) or ``]:`` (a reference definition).
_DESTINATION = re.compile(r"\](\(|:)")
_SCHEME = re.compile(r"([a-z][a-z0-9+.\-]*):")
_ATTACHMENT = re.compile(r"(?i:attachment):([^\s)>\"']+)")
#: What a browser ignores inside a URL's scheme (controls, whitespace) and markdown's escapes.
_URL_NOISE = re.compile(r"[\x00-\x20\x7f-\x9f\\\u200b-\u200f\u2028\u2029\ufeff]")
#: MathJax commands that make links or load code.
_MATHJAX = re.compile(r"\\(href|url|require)(?![A-Za-z])")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
_CELL_ID = re.compile(r"[A-Za-z0-9_\-]{1,64}")
#: Link destinations checked in one notebook (about 20 µs each); an honest notebook has a few dozen links.
MAX_CHECKED_LINKS = 2000
#: The MIME type a raw cell carries between two passes: no HTML page shows it, and it is escaped at the last.
RAW_UNTIL_LAST_PASS = "text/plain"


@dataclass
class LinkBudget:
    """How many more link destinations may be checked; past it every one is disarmed unchecked."""

    left: int = MAX_CHECKED_LINKS


def _html_cleaner() -> SanitizeHTML:
    return SanitizeHTML(
        tags=sorted(HTML_TAGS), attributes=HTML_ATTRIBUTES, strip=False, strip_comments=True, styles=[],
        safe_output_keys=set(TEXT_TYPES), sanitized_output_types={"text/html"},
    )


def clean_html(text: str) -> str:
    """Student HTML with only :data:`HTML_TAGS` and :data:`HTML_ATTRIBUTES` left active (the rest escaped).

    Examples
    --------
    >>> clean_html('<b>ok</b><img src=x onerror="alert(1)">')
    '<b>ok</b>&lt;img src=x onerror="alert(1)"&gt;'
    """
    return str(_html_cleaner().sanitize_html_tags(text))


def _escape_markup(text: str) -> str:
    """Escape every ``<`` that could open markup, except an attribute-less tag of :data:`MARKDOWN_TAGS`."""
    parts = []
    position = 0
    for match in _MARKUP.finditer(text):
        start = match.start()
        kept = _KEPT_TAG.match(text, start)
        if kept and kept.group(1).lower() in MARKDOWN_TAGS:
            continue
        parts += [text[position:start], "&lt;"]
        position = start + 1
    return "".join(parts) + text[position:]


def url_scheme(destination: str) -> str | None:
    """The scheme a browser would see at the start of ``destination`` (entities decoded), or None if relative.

    Examples
    --------
    >>> url_scheme("jav&#x09;ascript&colon;alert(1)")
    'javascript'
    >>> url_scheme("../notes.html#k") is None
    True
    """
    text = destination
    for _ in range(5):  # entities of entities, as far as any renderer would decode them
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    match = _SCHEME.match(_URL_NOISE.sub("", text).lower().lstrip("<"))
    return match.group(1) if match else None


def _allowed(destination: str, attachments: frozenset[str] | None) -> bool:
    scheme = url_scheme(destination)
    if scheme == "attachment" and attachments is not None:
        # nbconvert refuses a notebook whose markdown names an attachment it does not have
        name = _ATTACHMENT.match(_URL_NOISE.sub("", html.unescape(destination)).lstrip("<"))
        return name is not None and name.group(1) in attachments
    return scheme is None or scheme in LINK_SCHEMES


def _disarm_links(text: str, attachments: frozenset[str] | None, budget: LinkBudget) -> str:
    """Break the ``](`` or ``]:`` of each link, image or reference whose destination is not allowed (or not checked)."""
    parts = []
    position = 0
    for match in _DESTINATION.finditer(text):
        budget.left -= 1
        if budget.left < 0 or not _allowed(text[match.end(): match.end() + 300], attachments):
            # "]\(" and "]\:" are text in every markdown dialect: no link, no reference definition
            parts += [text[position: match.start()], "]\\", match.group(1)]
            position = match.end()
    return "".join(parts) + text[position:]


def safe_markdown(
    text: str, attachments: set[str] | frozenset[str] | None = None, budget: LinkBudget | None = None
) -> str:
    """A student's markdown with no active HTML, no dangerous link and no MathJax link or loader.

    ``attachments``: the names of the cell's attachments; a link to another one is disarmed
    (None: any ``attachment:`` link is kept). ``budget``: the link checks left for the notebook
    (None: :data:`MAX_CHECKED_LINKS` for this text alone).

    Examples
    --------
    >>> safe_markdown('**DCG** <sub>k</sub> <img src=x onerror=alert(1)>')
    '**DCG** <sub>k</sub> &lt;img src=x onerror=alert(1)>'
    >>> safe_markdown('[see](javascript:alert(1)) and [ok](https://example.org)')
    '[see]\\\\(javascript:alert(1)) and [ok](https://example.org)'
    """
    text = _escape_markup(text)
    text = _disarm_links(text, None if attachments is None else frozenset(attachments), budget or LinkBudget())
    return no_mathjax_links(text)


def no_mathjax_links(text: str) -> str:
    """``text`` with MathJax's ``\\href``, ``\\url`` and ``\\require`` disarmed (MathJax typesets the
    page's markdown, LaTeX and HTML outputs, and would make them links or load code).

    >>> no_mathjax_links(r"$\\href{javascript:alert(1)}{x}$")
    '$\\\\\\\\href{javascript:alert(1)}{x}$'
    """
    return _MATHJAX.sub(lambda match: "\\\\" + match.group(1), text)


def safe_attachments(attachments: Any) -> dict[str, dict[str, str]]:
    """A markdown cell's attachments with raster images only, each as base64 text."""
    kept: dict[str, dict[str, str]] = {}
    if not isinstance(attachments, dict):
        return kept
    for name, bundle in attachments.items():
        if not isinstance(name, str) or not isinstance(bundle, dict):
            continue
        images = {
            mime: data for mime, data in bundle.items()
            if mime in IMAGE_TYPES and isinstance(data, str) and _BASE64.fullmatch(data)
        }
        if images:
            kept[name] = images
    return kept


def _image_metadata(metadata: Any) -> dict[str, Any]:
    """An output's metadata: only numeric width and height of its images (they reach HTML attributes)."""
    kept: dict[str, Any] = {}
    for mime in IMAGE_TYPES:
        entry = metadata.get(mime) if isinstance(metadata, dict) else None
        if isinstance(entry, dict):
            size = {key: value for key in ("width", "height") if isinstance(value := entry.get(key), int | float)}
            if size:
                kept[mime] = size
    return kept


def _text(value: Any) -> str | None:
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        return "".join(value)
    return value if isinstance(value, str) else None


def _safe_data(mime: str, value: Any, budget: LinkBudget) -> str | None:
    """One rich output's text for ``mime``, made safe to show; None for a type (or value) that is not kept."""
    text = _text(value)
    if text is None:
        return None
    if mime in IMAGE_TYPES:
        return text if _BASE64.fullmatch(text) else None
    if mime == "text/plain":
        return text
    if mime == "text/latex":
        return no_mathjax_links(text)
    if mime == "text/html":
        return no_mathjax_links(clean_html(text))
    if mime == "text/markdown":
        return safe_markdown(text, budget=budget)
    return None


def safe_output(output: Any, budget: LinkBudget | None = None) -> NotebookNode | None:
    """An output rebuilt from what may be shown (see the module), or None if nothing is left."""
    if not isinstance(output, dict):
        return None
    kind = output.get("output_type")
    if kind == "stream":
        text = _text(output.get("text"))
        name = "stderr" if output.get("name") == "stderr" else "stdout"
        return new_output("stream", name=name, text=text) if text is not None else None
    if kind == "error":
        traceback = output.get("traceback")
        lines = [line for line in traceback if isinstance(line, str)] if isinstance(traceback, list) else []
        return new_output(
            "error", ename=str(output.get("ename", "")), evalue=str(output.get("evalue", "")), traceback=lines
        )
    if kind not in ("display_data", "execute_result") or not isinstance(output.get("data"), dict):
        return None
    budget = budget or LinkBudget()
    data = {mime: kept for mime, value in output["data"].items()
            if (kept := _safe_data(mime, value, budget)) is not None}
    if not data:
        return None
    rebuilt = new_output(kind, data=data, metadata=_image_metadata(output.get("metadata")))
    if kind == "execute_result":
        count = output.get("execution_count")
        rebuilt.execution_count = count if isinstance(count, int) and not isinstance(count, bool) else None
    return rebuilt


def safe_outputs(outputs: Any, budget: LinkBudget | None = None) -> list[NotebookNode]:
    """:func:`safe_output` of each output, leaving out those with nothing to show."""
    if not isinstance(outputs, list):
        return []
    budget = budget or LinkBudget()
    return [kept for output in outputs if (kept := safe_output(output, budget)) is not None]


def _release_cells(release: NotebookNode | None) -> dict[str, NotebookNode]:
    cells: dict[str, NotebookNode] = {}
    for cell in release.cells if release is not None else []:
        cell_id = grade_id(cell)
        if cell_id is not None and cell_id not in cells:
            cells[cell_id] = cell
    return cells


def _restore(cell: NotebookNode, original: NotebookNode) -> None:
    """Make ``cell`` the release's read-only ``original``.

    A test (grade) code cell keeps the source and outputs the grader gave it: its outcomes, and for
    a hidden test its description instead of the release's placeholder.
    """
    graded_here = cell.cell_type == "code" and nbgrader_metadata(original).get("grade")
    if not graded_here:
        cell.source = original.source
        if cell.cell_type == "code":
            cell.outputs = copy.deepcopy(original.get("outputs", []))
    cell.metadata = copy.deepcopy(original.metadata)
    if cell.cell_type == "markdown":
        cell.attachments = copy.deepcopy(original.get("attachments", {}))
        if not cell.attachments:
            del cell["attachments"]
    if cell.cell_type == "code":
        cell.outputs = safe_outputs(cell.outputs)
        cell.execution_count = None


def _neutralise(
    cell: NotebookNode, original: NotebookNode | None, budget: LinkBudget, shown: ShownBudget | None,
) -> NotebookNode:
    """A cell of the student's, inert (``original``: the release cell of the same grade_id, if any).

    ``shown``: the last pass's bound on the text kept (:mod:`.shown_text`); None in nbgrader's first
    pass, whose notebook is the one graded (every character of it is run).
    """
    metadata: dict[str, Any] = {}
    answer_cell = original is not None and original.cell_type == cell.get("cell_type")
    if answer_cell:
        metadata["nbgrader"] = copy.deepcopy(original.metadata["nbgrader"])  # type: ignore[union-attr]
    kind = cell.get("cell_type")
    source = _text(cell.get("source")) or ""
    cut = 0
    if shown is not None:
        source, cut = shown.shown(source, kind if kind in ("code", "markdown") else "raw", answer_cell)
    if kind == "code":
        new = new_cell("code", source, metadata=metadata, outputs=safe_outputs(cell.get("outputs"), budget))
    elif kind == "markdown":
        attachments = safe_attachments(cell.get("attachments"))
        new = new_cell("markdown", safe_markdown(source, set(attachments), budget), metadata=metadata)
        if attachments:
            new.attachments = attachments
    elif shown is not None:  # the last pass: raw, or a type no renderer knows: escaped text without a MIME type
        new = new_cell("raw", html.escape(source), metadata=metadata)
    else:  # shown by no page until the last pass escapes it (escaping in each pass would escape twice)
        new = new_cell("raw", source, metadata={**metadata, "raw_mimetype": RAW_UNTIL_LAST_PASS})
    if cut:  # after the sanitiser: the note is the grader's words, with no markup in them
        new.source += cut_note(cut, new.cell_type)
    cell_id = cell.get("id")
    if isinstance(cell_id, str) and _CELL_ID.fullmatch(cell_id):
        new.id = cell_id
    return new


def sanitise_notebook(notebook: NotebookNode, release: NotebookNode | None, *, last: bool = True) -> NotebookNode:
    """Make ``notebook`` inert in place (see the module); ``release`` is the released notebook, if known.

    Without a release every cell is treated as the student's. ``last``: no later pass sanitises this
    notebook again (false for nbgrader's first conversion, whose result its second one sanitises).
    """
    budget = LinkBudget()
    shown = ShownBudget() if last else None
    minor = notebook.get("nbformat_minor")
    if isinstance(minor, int) and minor < NBFORMAT_MINOR:
        # the rebuilt cells carry ids, which only nbformat 4.5 allows: upgrade as nbformat does (ids for all)
        upgrade(notebook, from_version=4, from_minor=minor)
    originals = _release_cells(release)
    seen: set[str] = set()
    cells = []
    for cell in notebook.cells:
        cell_id = grade_id(cell)
        original = originals.get(cell_id) if cell_id is not None and cell_id not in seen else None
        if cell_id is not None:
            seen.add(cell_id)
        if (
            original is not None and original.cell_type == cell.get("cell_type")
            and nbgrader_metadata(original).get("locked") and not nbgrader_metadata(original).get("solution")
        ):
            _restore(cell, original)
            cells.append(cell)
        else:
            cells.append(_neutralise(cell, original, budget, shown))
    notebook.cells = cells
    trusted = release.metadata if release is not None else {}
    notebook.metadata = {key: copy.deepcopy(trusted[key]) for key in NOTEBOOK_METADATA if key in trusted}
    return notebook
