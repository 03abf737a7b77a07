"""The operator's language API used by the session: "ru", "kk" or None. Pure.

The understanding itself (negation, self-correction, indirect names, transliteration) lives in
`nlu_language`; this module keeps the small API the session and the self-test call: `detect_language` (the
language a caller's answer chooses, or None to re-ask), `spoken_language` (the one he talks in, when he names
none), `strict_language` (a code or natural text, for a model's `set_language` call) and `language_change` (an
explicit switch after the choice).
"""

from __future__ import annotations

from policies.operator.nlu_language import language_change, spoken_language, understand_language

LANGUAGES: tuple[str, ...] = ("ru", "kk")
DTMF_LANGUAGE: dict[str, str] = {"1": "ru", "2": "kk"}
_STRICT = {"ru": "ru", "rus": "ru", "kk": "kk", "kaz": "kk", "kz": "kk"}

__all__ = ["DTMF_LANGUAGE", "LANGUAGES", "detect_language", "language_change", "spoken_language", "strict_language"]


def detect_language(text: str) -> str | None:
    """ "ru" or "kk" when `text` chooses one of them (named, corrected, or by negating the other); else None."""
    return understand_language(text or "").value


def strict_language(value: str) -> str | None:
    """A code ("ru", "kk", also "rus"/"kaz"/"kz") or natural text -> "ru"/"kk"; None when it is neither."""
    code = _STRICT.get((value or "").strip().lower())
    return code or detect_language(value or "")
