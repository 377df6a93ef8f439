"""A hostile notebook that tries every way of running script in a page that shows it, with canaries.

Each vector's script would write a canary file through the Jupyter server's contents API
(``PUT /api/contents/canary-<vector>.txt``, with the page's ``_xsrf`` cookie), as a page opened by
a logged-in tutor could: code execution as the tutor. The canary only ever lands in the folder the
test's own Jupyter server serves (a temporary course); nothing else is touched.
"""

from __future__ import annotations

import base64
import json

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output, new_raw_cell

from autograder.course.materials.example_notebooks import fill_solutions

from grading_run import CORRECT_DCG, CORRECT_NDCG, RELEASE

CANARY_PREFIX = "canary-"
#: Text a student wrote honestly, which must still be shown after sanitising.
HONEST_NOTE = "My notes: DCG discounts the grade at rank i"
HONEST_MARKDOWN = f"{HONEST_NOTE} by log<sub>2</sub>(i + 1), see [the slides](https://example.org/slides)."

#: Vectors that fire on their own when the page loads (the others need a click or a CDN script).
SELF_FIRING = ("js-output", "html-output", "svg-output", "md-img-onerror", "md-svg", "md-iframe-srcdoc",
               "raw-html", "forged-grade-id", "cell-tags")
#: Vectors that fire when a link is followed.
ON_CLICK = ("md-javascript-link", "html-javascript-link", "md-reference-link")
#: Vectors whose script could not reach the API from where it runs (an opaque origin, a CDN widget
#: manager), checked in the page's elements instead.
STRUCTURAL = ("md-data-link", "attachment", "widget-state", "js-student-output")
VECTORS = SELF_FIRING + ON_CLICK + STRUCTURAL


def canary_script(vector: str) -> str:
    """JavaScript that writes ``canary-<vector>.txt`` into the server's root through its API."""
    return (
        "(function(){var m=document.cookie.match(/(?:^|; )_xsrf=([^;]*)/);"
        f"fetch('/api/contents/{CANARY_PREFIX}{vector}.txt',{{method:'PUT',credentials:'same-origin',"
        "headers:{'Content-Type':'application/json','X-XSRFToken':m?m[1]:''},"
        "body:JSON.stringify({type:'file',format:'text',content:String(location.href)})})})()"
    )


def inline(vector: str) -> str:
    """:func:`canary_script` for an attribute or a URL (no quotes, no spaces)."""
    return f"eval(atob('{base64.b64encode(canary_script(vector).encode()).decode()}'))"


def _markdown_vectors(forged_metadata: bool) -> list[nbformat.NotebookNode]:
    svg_doc = f'<svg xmlns="http://www.w3.org/2000/svg"><script>{canary_script("attachment")}</script></svg>'
    page = f"<script>{canary_script('md-data-link')}</script>"
    cells = [
        new_markdown_cell(HONEST_MARKDOWN),
        new_markdown_cell(f'Look: <img src="x" onerror="{inline("md-img-onerror")}">'),
        new_markdown_cell(f'<svg onload="{inline("md-svg")}"><script>{canary_script("md-svg")}</script></svg>'),
        new_markdown_cell(
            f'<iframe srcdoc="<script>{inline("md-iframe-srcdoc")}</script>"></iframe>'
        ),
        new_markdown_cell(
            f"[click me](javascript:{inline('md-javascript-link')}) "
            f"and [me too][ref]\n\n[ref]: jav&#x09;ascript&colon;{inline('md-reference-link')}"
        ),
        new_markdown_cell(
            f'<a href="javascript:{inline("html-javascript-link")}">a link</a> '
            f"[data](data:text/html;base64,{base64.b64encode(page.encode()).decode()})"
        ),
    ]
    attached = new_markdown_cell("![figure](attachment:figure.svg) ![page](attachment:page.html)")
    attached.attachments = {
        "figure.svg": {"image/svg+xml": base64.b64encode(svg_doc.encode()).decode()},
        "page.html": {"text/html": base64.b64encode(page.encode()).decode()},
    }
    forged = new_markdown_cell("An answer of mine.")
    forged.metadata["nbgrader"] = {
        "solution": True, "grade": True, "points": 1, "locked": False, "schema_version": 3,
        "grade_id": f'x"><img src="x" onerror="{inline("forged-grade-id")}">',
    }
    tagged = new_code_cell("pass")
    tagged.metadata["tags"] = [f'x"><img src="x" onerror="{inline("cell-tags")}">']
    raw_html = new_raw_cell(f'<img src="x" onerror="{inline("raw-html")}">')
    raw_html.metadata["raw_mimetype"] = "text/html"
    if forged_metadata:
        cells.append(forged)
    return [*cells, attached, tagged, raw_html, new_raw_cell(f"<script>{canary_script('raw-html')}</script>")]


def _locked_outputs() -> list[nbformat.NotebookNode]:
    """Outputs the student leaves on the release's read-only figure and helper cells."""
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" onload="{inline("svg-output")}"><script>{canary_script("svg-output")}</script></svg>'
    return [
        new_output("display_data", data={"application/javascript": canary_script("js-output"), "text/plain": "<js>"}),
        new_output("display_data", data={"text/html": f"<script>{canary_script('html-output')}</script>"
                                                      f'<img src="x" onerror="{inline("html-output")}">'}),
        new_output("display_data", data={"image/svg+xml": svg}),
        new_output("display_data", data={
            "application/vnd.jupyter.widget-view+json": {"model_id": "evil", "version_major": 2, "version_minor": 0},
            "text/plain": "HTML()",
        }),
    ]


def _widget_state() -> dict:
    value = f'<img src="x" onerror="{inline("widget-state")}">'
    return {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "version_minor": 0, "state": {
        "evil": {"model_name": "HTMLModel", "model_module": "@jupyter-widgets/controls",
                 "model_module_version": "2.0.0", "state": {"value": value}},
    }}}


def hostile_notebook(forged_metadata: bool = True) -> nbformat.NotebookNode:
    """The release with correct solutions, honest notes, and every vector of :data:`VECTORS`.

    ``forged_metadata=False`` leaves out the cell with a forged nbgrader ``grade_id`` (on nbgrader's path
    the course's ``ForgetUnknownCells`` makes it an ordinary student cell before ``OverwriteCells``).
    """
    notebook = fill_solutions(nbformat.read(RELEASE, as_version=4), {"dcg": CORRECT_DCG, "ndcg": CORRECT_NDCG})
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in ("discount_figure", "test_helpers"):
            cell.outputs = _locked_outputs()
    first_solution = next(i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("solution"))
    own = new_code_cell("x = 1", outputs=[
        new_output("display_data", data={"application/javascript": canary_script("js-student-output")}),
    ])
    notebook.cells[first_solution:first_solution] = [*_markdown_vectors(forged_metadata), own]
    notebook.metadata["widgets"] = _widget_state()
    return notebook


def dangerous_elements_script() -> str:
    """JavaScript for ``page.evaluate``: descriptions of elements that could run script or load a document."""
    return """() => {
      const bad = [];
      // an SVG image with nothing in it that runs (the report's charts): inert, wherever it is opened
      const inertSvg = v => {
        const m = /^data:image\\/svg\\+xml;base64,([A-Za-z0-9+/=]*)$/i.exec(v || '');
        if (!m) return false;
        try { return !/<script|<foreignObject|<iframe|\\son[a-z]+\\s*=|javascript:|data:text/i.test(atob(m[1])); }
        catch (e) { return false; }
      };
      const unsafe = v => /^\\s*(javascript|vbscript|data):/i.test(v || '') && !/^data:image\\/(png|jpeg|gif);/i.test(v)
        && !inertSvg(v);
      for (const el of document.querySelectorAll('*')) {
        for (const attr of el.attributes) {
          // the pages' own handlers (the formgrader's buttons) are not the student's: look for the payload
          if (/^on/i.test(attr.name) && /atob|canary/i.test(attr.value)) bad.push(`${el.tagName} ${attr.name}`);
          if (['href', 'src', 'action', 'formaction', 'data', 'xlink:href'].includes(attr.name.toLowerCase()) && unsafe(attr.value))
            bad.push(`${el.tagName} ${attr.name}=${attr.value.slice(0, 40)}`);
          if (attr.name.toLowerCase() === 'srcdoc') bad.push(`${el.tagName} srcdoc`);
        }
        if (['IFRAME', 'OBJECT', 'EMBED'].includes(el.tagName)) bad.push(el.tagName);
        if (el.tagName === 'SCRIPT' && /widget-state|canary|atob/i.test(el.textContent + (el.type || ''))) bad.push('SCRIPT ' + el.type);
        if (el.tagName.toLowerCase() === 'svg' && el.querySelector('script')) bad.push('SVG with script');
      }
      return bad;
    }"""


def dump(notebook: nbformat.NotebookNode) -> str:
    """The notebook as JSON text (for tests that search it)."""
    return json.dumps(notebook)
