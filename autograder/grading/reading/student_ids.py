"""The one rule for a student id (a submission folder's name), checked before anything uses the name.

Everyone who can write nbgrader's inbound exchange chooses a folder name, and nbgrader's own
pages and commands use it as it is: as HTML in the formgrader, as a glob pattern in ``autograde``,
as a CSV field in ``export``, as text in its log. So a name is graded only when it is a safe,
unambiguous name; any other folder is **refused**: not graded, never recorded in the gradebook,
listed with its name escaped (:func:`shown_id`) and the reason. The rule (docs/security.md,
"Student ids"):

- 1 to :data:`MAX_LENGTH` characters, valid UTF-8, in Unicode's NFC form (the form every
  keyboard and nbgrader's own ``submit`` produce: a name in another form is a look-alike of it);
- only letters and decimal digits of any script (with their combining marks), and ``. _ - @``;
  the first character a letter or digit (no hidden ``.name``, no ``-option``, no ``=formula``,
  no ``@`` formula either); no invisible letter or mark (Unicode's default-ignorable characters,
  such as the Hangul filler or a variation selector);
- the letters of one script, or of a combination one writing system uses (Latin with Han and
  the Japanese kana, with Han and Bopomofo, or with Han and Hangul: Unicode's "highly restrictive"
  level, UTS #39), so a Cyrillic ``а`` in a Latin name is refused;
- unambiguous: two names equal after NFKC normalisation and case folding (``Alice`` and
  ``alice``, a fullwidth ``ａlice``) are the same student to a reader. Of such a group the one
  name the gradebook's roster already holds is graded and the others are refused naming it; when
  the roster holds none or several of them, every one is refused, each naming the others. So an
  attacker can keep a classmate ungraded only visibly: both are listed as refused, side by side.

Standard library only (the grading layer): the course layer reads the roster from the gradebook.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

#: The longest id: nbgrader's column is 128 characters; half of it keeps every page and table readable.
MAX_LENGTH = 64
#: Punctuation an id may hold (never as its first character).
PUNCTUATION = frozenset("._-@")
#: Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): invisible when shown.
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
#: The script combinations one writing system uses (UTS #39's "highly restrictive"); any single script too.
_COMBINED_SCRIPTS = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
#: First words of character names that are no script of their own (Unicode's Common script).
_COMMON = frozenset({"", "DIGIT", "MODIFIER", "FULLWIDTH", "SUPERSCRIPT", "SUBSCRIPT"})


@dataclass(frozen=True)
class RefusedId:
    """A folder whose name breaks the rule: what to show for it and why it is not graded."""

    #: The folder's name as it is on disk (never shown: only :attr:`shown` is).
    folder: str
    #: The name as every output shows it (:func:`shown_id`).
    shown: str
    #: Why, in words a tutor can act on (any name in it shown escaped).
    reason: str


@dataclass(frozen=True)
class IdCheck:
    """The folders of a submission directory, sorted into the ones to grade and the refused ones."""

    #: The folder names to grade, in the order given.
    accepted: tuple[str, ...]
    #: The other folders, in the order given.
    refused: tuple[RefusedId, ...]

    def refused_folders(self) -> dict[str, RefusedId]:
        """Each refused folder's name with its refusal."""
        return {refusal.folder: refusal for refusal in self.refused}


def shown_id(name: str) -> str:
    """``name`` as an output shows it: itself when it keeps the rule's characters, else Python's ``ascii()``.

    The escaped form is quoted, so it can never be mistaken for a valid id (no id holds a quote),
    and holds only printable ASCII: no markup, glob, control character or invisible letter survives.

    Examples
    --------
    >>> shown_id("alice")
    'alice'
    >>> print(shown_id("bob\\u200b"), shown_id("x\\x1b[2J\\r"), shown_id('<svg onload="x">'))
    'bob\\u200b' 'x\\x1b[2J\\r' '<svg onload="x">'
    """
    return name if name_problem(name) is None else ascii(name)


def id_key(name: str) -> str:
    """What a reader takes ``name`` for: NFKC with case folding (Unicode's identifier caseless match).

    Examples
    --------
    >>> id_key("Alice") == id_key("ａｌｉｃｅ") == id_key("alice")
    True
    """
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def name_problem(name: str) -> str | None:
    """Why ``name`` alone is not a valid student id (the start of a sentence after "its name"), or None.

    Examples
    --------
    >>> name_problem("ana.b-12@uni") is None, name_problem("Zoë") is None, name_problem("李小龍") is None
    (True, True, True)
    >>> print(name_problem("*"))
    starts with '*' (a student id starts with a letter or digit)
    >>> name_problem("c*1_exam_style")
    "holds '*', which a student id may not hold (only letters, digits and . _ - @)"
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: bytes os.fsdecode kept from an old archive
        return "is not valid UTF-8"
    if not name:
        return "is empty"
    if len(name) > MAX_LENGTH:
        return f"is {len(name)} characters long, over the {MAX_LENGTH} a student id may have"
    if not unicodedata.is_normalized("NFC", name):
        return f"is not in Unicode's NFC form (as typed it would be {unicodedata.normalize('NFC', name)!a})"
    if not _word_character(name[0]) or unicodedata.category(name[0]).startswith("M"):
        return f"starts with {name[0]!a} (a student id starts with a letter or digit)"
    for char in name:
        if not (_word_character(char) or char in PUNCTUATION) or _ignorable(char):
            return f"holds {char!a}, which a student id may not hold (only letters, digits and . _ - @)"
    scripts = _scripts(name)
    if len(scripts) > 1 and not any(scripts <= allowed for allowed in _COMBINED_SCRIPTS):
        return f"mixes the scripts {', '.join(sorted(scripts))} (a look-alike of another name)"
    return None


def check_ids(folders: Iterable[str], roster: Iterable[str] = ()) -> IdCheck:
    """Sort ``folders`` (submission folder names) into the ones to grade and the refused ones.

    Parameters
    ----------
    folders : iterable of str
        Every student folder of the submission directory (the check is over all of them, whichever
        students a run grades, so that both grading paths decide alike).
    roster : iterable of str
        The student ids the gradebook already holds (empty without a gradebook).

    Returns
    -------
    IdCheck
    """
    names = list(dict.fromkeys(folders))
    known = set(roster)
    problems = {name: problem for name in names if (problem := name_problem(name)) is not None}
    same: dict[str, set[str]] = {}  # id_key -> the valid folder names and roster ids with it
    for name in [*known, *names]:
        if name not in problems:
            same.setdefault(id_key(name), set()).add(name)
    accepted, refused = [], []
    for name in names:
        reason = None if name not in problems else f"its name {problems[name]}"
        if reason is None:
            reason = _ambiguity(name, same[id_key(name)], known)
        if reason is None:
            accepted.append(name)
        else:
            refused.append(RefusedId(name, shown_id(name), f"{reason}; rename the folder to the student's id"))
    return IdCheck(tuple(accepted), tuple(refused))


def _ambiguity(name: str, group: set[str], known: set[str]) -> str | None:
    """Why ``name`` is refused for its look-alikes in ``group``, or None (alone, or the roster's only one)."""
    others = sorted(group - {name})
    if not others:
        return None
    in_roster = sorted(group & known)
    if in_roster == [name]:
        return None  # the gradebook's student: a look-alike folder cannot displace them
    listed = ", ".join(shown_id(other) for other in others)
    if in_roster:
        return f"its name looks the same as {listed} (the gradebook has {', '.join(map(shown_id, in_roster))})"
    return f"its name looks the same as {listed}, and the gradebook holds none of them"


def _word_character(char: str) -> bool:
    """A letter, a decimal digit or a combining mark (of a letter of Devanagari, say)."""
    category = unicodedata.category(char)
    return category[0] in "LM" or category == "Nd"


def _ignorable(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _IGNORABLE)


def _scripts(name: str) -> frozenset[str]:
    """The scripts of ``name``'s letters and digits, from their Unicode names (Python has no Script property).

    A name's first word is its script's (``LATIN SMALL LETTER A``, ``CYRILLIC ...``, ``CJK UNIFIED
    IDEOGRAPH`` for Han); NFKC first, so a fullwidth or mathematical letter counts as its plain one.
    """
    scripts = set()
    for char in unicodedata.normalize("NFKC", name):
        category = unicodedata.category(char)
        if category[0] != "L" and category != "Nd":
            continue  # marks, punctuation: Unicode's Inherited and Common
        word = unicodedata.name(char, "").split(" ")[0].split("-")[0]
        if word not in _COMMON:
            scripts.add("HAN" if word == "CJK" else word)
    return frozenset(scripts)
