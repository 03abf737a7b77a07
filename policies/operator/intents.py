"""Caller intents the operator policy honours in any state: human handoff and closing. Pure.

Patterns run on folded text (`text.fold`), so Kazakh "оператормен байланыстыр" and "сау болыңыз" match
whatever the transcript's letters. A question that merely contains "спасибо" is not a goodbye: closing needs
a farewell phrase or a "that's all" phrase.
"""

from __future__ import annotations

import re

from policies.operator.text import fold

_HANDOFF = re.compile(
    r"\b(оператор\w*|operator\w*|жив\w* (человек\w*|оператор\w*|люд\w*)|с человеком|человеком|"
    r"адам\w* (сойлес\w*|косыл\w*|байланыс\w*)|"
    r"тири адам\w*|human|real person)\b"
)
_CLOSING = re.compile(
    r"\b(до свидани\w*|всего доброго|всего хорошего|вс[её] спасибо|спасибо вс[её]|больше ничего|больше вопросов нет|"
    r"вопросов нет|нет спасибо|сау болыныз|сау бол\w*|рахмет болды|болды рахмет|жок рахмет|"
    r"баска сурак жок|сурагым жок|goodbye|bye|that s all)\b"
)
_BARE_FAREWELL = frozenset({"пока", "спасибо пока", "пока пока", "bye"})
_QUESTION_MARKERS = re.compile(r"\b(как|какой|какие|сколько|почему|где|когда|можно ли|есть ли|калай|канша)\b")


def is_handoff_request(text: str) -> bool:
    """The caller asks for a human ("оператор", "живой человек", "оператормен байланыстыр", "адаммен сөйлесу")."""
    return _HANDOFF.search(fold(text)) is not None


def is_closing(text: str) -> bool:
    """The caller says goodbye ("до свидания", "всё, спасибо", "сау болыңыз", "рахмет, болды")."""
    folded = fold(text)
    if folded.strip() in _BARE_FAREWELL:
        return True
    return _CLOSING.search(folded) is not None and _QUESTION_MARKERS.search(folded) is None
