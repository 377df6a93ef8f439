"""The names of what a student's code raised or returned, as feedback may show them.

The student's code chooses its exceptions' and results' classes: a name it makes up could carry
data (a hidden input) into the feedback. These say which names are shown as they are and what
stands for the others, in the student's terms.
"""

from __future__ import annotations

import builtins

#: Type names shown as they are; any other name could be chosen by the student to carry data.
#: (Built-in type names are shown too, see :func:`type_name`.)
_SHOWN_TYPES = {"ndarray", "float64", "float32", "int64", "int32", "Decimal", "Fraction", "NoneType"}


def exception_name(name: str) -> str:
    """A raised exception's type name if it is a built-in one, else a neutral phrase (it could carry data)."""
    candidate = getattr(builtins, name, None)
    if isinstance(candidate, type) and issubclass(candidate, BaseException):
        return name
    return "an exception of its own class"


#: The exception and type names a hidden case's message may show. The student's code picks what it
#: raises or returns while it holds a hidden input, so each name it may choose is a few bits of that
#: input carried into the feedback; these are the ones a real mistake produces, the rest read as
#: ``Exception`` or ``object``.
HIDDEN_EXCEPTIONS = frozenset({"ZeroDivisionError", "IndexError", "TypeError", "ValueError", "NotImplementedError"})
HIDDEN_TYPES = frozenset({"ndarray", "NoneType", "str", "list"})


def hidden_exception_name(name: str) -> str:
    """What a hidden case's message may say the student's code raised."""
    return name if name in HIDDEN_EXCEPTIONS else "Exception"


def hidden_type_name(name: str) -> str:
    """What a hidden case's message may say the student's code returned."""
    return name if name in HIDDEN_TYPES else "object"


def type_name(name: str) -> str:
    """A returned object's type name if it is a well-known one, else a neutral phrase."""
    known = name in _SHOWN_TYPES or isinstance(getattr(builtins, name, None), type)
    return name if known else "an object of its own class"


#: How an empty container is written, so the student recognises what their code returned.
_EMPTY = {"list": "a list `[]`", "tuple": "a tuple `()`", "dict": "a dict `{}`", "str": "an empty string `''`",
          "ndarray": "an empty numpy array"}


def returned(name: str, empty: bool = False) -> str:
    """What a call returned, in a student's terms, from its type's name: "None (nothing: ...)", "a list".

    >>> returned("NoneType")
    'None (nothing: does the function print its value instead of returning it?)'
    >>> returned("list", empty=True)
    'a list `[]`'
    """
    if empty and name in _EMPTY:
        return _EMPTY[name]
    phrases = {
        "NoneType": "None (nothing: does the function print its value instead of returning it?)",
        "list": "a list", "tuple": "a tuple", "str": "a string (str)", "dict": "a dict", "ndarray": "a numpy array",
    }
    if name == "object":  # a hidden case's type that is not shown
        return "a value of another type (not shown for a hidden case)"
    shown = type_name(name)
    if shown == "an object of its own class":
        return shown
    return phrases.get(name, f"an {shown}" if shown[0] in "aeiou" else f"a {shown}")
