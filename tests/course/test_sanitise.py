"""The sanitiser of autograded notebooks, vector by vector, and as a property of any markdown.

The browser tests (tests/e2e/test_threat_active_content.py) show the same in headless Chromium, in
the formgrader and in the feedback pages; here each vector is checked on the notebook itself and on
the HTML that nbconvert (the formgrader's and generate_feedback's renderer) makes of it.
"""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import nbformat
import pytest
from hypothesis import example, given, settings
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from autograder.course.notebook_cells.sanitise import (
    LINK_SCHEMES,
    safe_attachments,
    safe_markdown,
    safe_output,
    sanitise_notebook,
    url_scheme,
)

from active_content import HONEST_MARKDOWN, HONEST_NOTE, hostile_notebook
from grading_run import RELEASE
from strategies import hostile_markdown

#: Tags mistune makes from markdown (with nbconvert's plugins: ``def_list`` makes ``<dl>``, ``<dt>``,
#: ``<dd>`` of a line starting ``: ``), plus the formatting tags a markdown cell may keep.
MARKDOWN_OUTPUT_TAGS = {
    "dl", "dt", "dd", "p", "a", "img", "em", "strong", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li",
    "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "b", "i", "sub", "sup", "u", "s", "del",
    "span", "div", "section", "input",
}


class _Elements(HTMLParser):
    """Every start tag of an HTML text with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, attrs))


def active_parts(html_text: str) -> list[str]:
    """What in ``html_text`` could run script: unknown tags, handlers, and URLs with a scheme not allowed."""
    parser = _Elements()
    parser.feed(html_text)
    parser.close()
    problems = []
    for tag, attrs in parser.found:
        if tag not in MARKDOWN_OUTPUT_TAGS:
            problems.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name in ("srcdoc", "style", "formaction"):
                problems.append(f"<{tag} {name}>")
            if name in ("href", "src") and (scheme := url_scheme(value or "")) and scheme not in LINK_SCHEMES:
                problems.append(f"<{tag} {name}={value!r}>")
    return problems


def rendered(markdown: str) -> str:
    """The HTML nbconvert's markdown filter (the formgrader's and the feedback's) makes of a markdown cell."""
    return markdown2html_mistune(markdown)


# --- markdown, vector by vector -------------------------------------------------------------------

@pytest.mark.parametrize("markdown", [
    '<img src="x" onerror="alert(1)">',
    "<svg onload=alert(1)><script>alert(1)</script></svg>",
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    "<script>alert(1)</script>",
    '<a href="javascript:alert(1)">x</a>',
    "<details open ontoggle=alert(1)>",
    "<B ONCLICK=alert(1)>bold</B>",
    "<object data='data:text/html,<script>alert(1)</script>'></object>",
    "[click](javascript:alert(1))",
    "[click]( <javascript:alert(1)> )",
    "![pic](javascript:alert(1))",
    "[click][r]\n\n[r]: javascript:alert(1)",
    "[click](&#x6A;ava&#x73;cript&colon;alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[page](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[vb](vbscript:msgbox(1))",
])
def test_markdown_vectors_render_inert(markdown):
    assert active_parts(rendered(markdown)), "the vector must be live before sanitising"
    assert active_parts(rendered(safe_markdown(markdown))) == []


def test_mathjax_links_and_loaders_are_disarmed():
    text = safe_markdown(r"$\href{javascript:alert(1)}{x}$ and $\require{action}$ and $\url{javascript:x}$")
    assert not re.search(r"(?<!\\)\\(href|require|url)\b", text.replace("\\\\", ""))


@pytest.mark.parametrize("mime", ["text/latex", "text/html"])
def test_mathjax_links_in_latex_and_html_outputs_are_disarmed(mime):
    # MathJax typesets these outputs in the page (a red-team review found them kept as written)
    hostile = r"$\href{javascript:alert(1)}{click}$ $\require{action}$ $\url{javascript:x}$"
    output = safe_output(new_output("display_data", data={mime: hostile}))
    assert output is not None
    assert not re.search(r"(?<!\\)\\(href|require|url)\b", output.data[mime].replace("\\\\", ""))
    assert "click" in output.data[mime]


def test_honest_markdown_still_shows():
    honest = (
        "# My notes\n\n**DCG** sums *discounted* gains: $\\sum_i rel_i / \\log_2(i + 1)$, and a < b, "
        "x<sub>i</sub>, line<br>break.\n\n- [slides](https://example.org/slides)\n- [section](#ndcg)\n"
        "- [notes](notes/ndcg.md)\n- ![plot](attachment:plot.png)\n- [mail](mailto:tutor@example.org)\n\n"
        "```python\nprint(dcg([3, 2], 2))\n```\n"
    )
    assert safe_markdown(honest) == honest


def test_a_tag_like_text_is_shown_as_text():
    html = rendered(safe_markdown("see <img src=x onerror=alert(1)> here"))
    assert "&lt;img src=x onerror=alert(1)" in html  # shown to the tutor, not run


@settings(max_examples=300, deadline=None)
@given(hostile_markdown)
@example("<\n: ")  # a definition list (nbconvert's def_list plugin): inert tags hypothesis once found
def test_no_markdown_renders_active_after_sanitising(markdown):
    assert active_parts(rendered(safe_markdown(markdown))) == []


# --- attachments, raw cells, outputs ---------------------------------------------------------------

def test_a_link_to_a_dropped_attachment_is_disarmed():
    # nbconvert refuses a notebook whose markdown names a missing attachment: the page would not render
    text = safe_markdown("![a](attachment:a.png) ![b](attachment:b.svg)", attachments={"a.png"})
    assert text == "![a](attachment:a.png) ![b]\\(attachment:b.svg)"


def test_attachments_keep_raster_images_only():
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    kept = safe_attachments({
        "a.png": {"image/png": png},
        "b.svg": {"image/svg+xml": base64.b64encode(b"<svg onload=alert(1)>").decode()},
        "c.html": {"text/html": "PHNjcmlwdD4="},
        "d.png": {"image/png": 'x" onerror="alert(1)'},
        "e.png": "not a bundle",
    })
    assert kept == {"a.png": {"image/png": png}}


@pytest.mark.parametrize("output", [
    new_output("display_data", data={"application/javascript": "alert(1)"}),
    new_output("display_data", data={"image/svg+xml": "<svg onload=alert(1)></svg>"}),
    new_output("display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "m"}}),
    new_output("display_data", data={"image/png": 'x" onerror="alert(1)'}),
    new_output("display_data", data={"text/x-unknown": "<script>alert(1)</script>"}),
    {"output_type": "made-up", "data": {"text/html": "<script>alert(1)</script>"}},
    {"output_type": "display_data", "data": "not a bundle"},
])
def test_outputs_that_could_run_are_dropped(output):
    assert safe_output(output) is None


def test_html_outputs_are_cleaned_with_a_strict_allowlist():
    kept = safe_output({"output_type": "execute_result", "execution_count": "<img src=x onerror=alert(1)>", "data": {
        "text/html": '<table class="dataframe"><tr><td>0.95</td></tr></table><script>alert(1)</script>'
                     '<img src=x onerror=alert(1)><a href="https://example.org">x</a><b style="x">y</b>',
        "text/plain": "0.95",
    }, "metadata": {}})
    html = kept.data["text/html"]
    assert '<table class="dataframe">' in html and "<td>0.95</td>" in html  # honest tables still show
    parser = _Elements()
    parser.feed(html)
    tags = {tag for tag, _ in parser.found}
    attributes = {name for _, attrs in parser.found for name, _ in attrs}
    assert tags <= {"table", "tbody", "tr", "td", "b"} and attributes <= {"class"}
    assert "&lt;script&gt;" in html  # shown as text
    assert kept.data["text/plain"] == "0.95" and kept.execution_count is None


def test_image_sizes_must_be_numbers():
    png = base64.b64encode(b"png").decode()
    kept = safe_output(new_output("display_data", data={"image/png": png}, metadata={
        "image/png": {"width": '1" onerror="alert(1)', "height": 40}, "isolated": True,
    }))
    assert kept.metadata == {"image/png": {"height": 40}}


def test_streams_and_errors_stay():
    assert safe_output(new_output("stream", name="stdout", text="passed\n")).text == "passed\n"
    error = safe_output(new_output("error", ename="TestFailed", evalue="<b>", traceback=["TestFailed: <b>"]))
    assert (error.ename, error.evalue, error.traceback) == ("TestFailed", "<b>", ["TestFailed: <b>"])


# --- whole notebooks ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def release():
    return nbformat.read(RELEASE, as_version=4)


def test_read_only_cells_carry_the_releases_outputs_and_metadata(release):
    notebook = sanitise_notebook(hostile_notebook(), release)
    originals = {c.metadata["nbgrader"]["grade_id"]: c for c in release.cells}
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in ("discount_figure", "test_helpers", "intro"):
            assert cell.source == originals[grade_id].source
            assert cell.get("outputs", []) == originals[grade_id].get("outputs", [])
            assert cell.metadata == originals[grade_id].metadata


def test_a_hostile_notebook_renders_inert_and_honest_text_still_shows(release):
    exporter = HTMLExporter(template_name="classic")  # what nbgrader's formgrade and feedback templates extend
    before, _ = exporter.from_notebook_node(hostile_notebook())
    assert len(set(live_canaries(before))) >= 5  # the vectors are live in nbconvert's page before sanitising
    notebook = sanitise_notebook(hostile_notebook(), release)
    page, _ = exporter.from_notebook_node(notebook)
    assert live_canaries(page) == []
    assert "widget-state" not in page and "application/javascript" not in page
    assert HONEST_NOTE in page and "<sub>2</sub>" in page and 'href="https://example.org/slides"' in page
    assert "widgets" not in notebook.metadata
    assert all(cell.cell_type != "raw" or "raw_mimetype" not in cell.metadata for cell in notebook.cells)
    assert all("tags" not in cell.metadata for cell in notebook.cells)
    assert HONEST_MARKDOWN in [cell.source for cell in notebook.cells]


class _Live(HTMLParser):
    """Elements of a page that carry the canary script where a browser would run it."""

    def __init__(self) -> None:
        super().__init__()
        self.live: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag, attrs):
        self.in_script = tag == "script"
        self.live += [f"<{tag} {name}>" for name, value in attrs if "atob(" in (value or "") or "canary-" in (value or "")]
        if tag in ("iframe", "object", "embed"):
            self.live.append(f"<{tag}>")

    def handle_endtag(self, tag):
        self.in_script = False

    def handle_data(self, data):
        if self.in_script and ("atob(" in data or "canary-" in data):
            self.live.append("<script>")


def live_canaries(page: str) -> list[str]:
    parser = _Live()
    parser.feed(page)
    parser.close()
    return parser.live


def test_forged_nbgrader_metadata_is_dropped(release):
    notebook = sanitise_notebook(hostile_notebook(), release)
    release_ids = {c.metadata["nbgrader"]["grade_id"] for c in release.cells}
    ids = [c.metadata["nbgrader"]["grade_id"] for c in notebook.cells if "nbgrader" in c.metadata]
    assert set(ids) <= release_ids and len(ids) == len(set(ids))


def test_without_a_release_every_cell_is_the_students():
    notebook = new_notebook(cells=[
        new_markdown_cell("<img src=x onerror=alert(1)>", metadata={"nbgrader": {"grade_id": "intro", "locked": True}}),
        new_code_cell("x", outputs=[new_output("display_data", data={"application/javascript": "alert(1)"})]),
        new_raw_cell("<script>alert(1)</script>", metadata={"raw_mimetype": "text/html"}),
    ])
    notebook.metadata = {"widgets": {}, "kernelspec": {"name": '"><script>', "display_name": "<script>"}}
    sanitise_notebook(notebook, None)
    assert notebook.metadata == {}
    assert notebook.cells[0].source.startswith("&lt;img") and notebook.cells[0].metadata == {}
    assert notebook.cells[1].outputs == []
    assert notebook.cells[2].source == "&lt;script&gt;alert(1)&lt;/script&gt;" and notebook.cells[2].metadata == {}


def test_a_notebook_of_an_older_minor_version_stays_valid():
    # the rebuilt cells carry ids, which nbformat 4.4 does not allow: the notebook becomes 4.5, as nbformat upgrades
    old = new_notebook(cells=[new_code_cell("x = 1"), new_markdown_cell("*hi*")])
    old.nbformat_minor = 4
    for cell in old.cells:
        del cell["id"]
    text = nbformat.writes(sanitise_notebook(nbformat.reads(nbformat.writes(old), as_version=4), None))
    notebook = nbformat.reads(text, as_version=4)
    nbformat.validate(notebook)
    assert notebook.nbformat_minor == 5 and all(cell.get("id") for cell in notebook.cells)
