"""How an operator reply is voiced: a Kazakh line inside a Russian reply (the bilingual greeting and
re-prompts) gets the kk voice, so each half is read by a voice that knows its letters. Pure."""

from __future__ import annotations

KAZAKH_LETTERS = frozenset("әғқңөұүһіӘҒҚҢӨҰҮҺІ")
KAZAKH_LINE_SHARE = 0.3  # a line where this share of the words has Kazakh-only letters is Kazakh


def _is_kazakh(line: str) -> bool:
    words = line.split()
    kazakh = sum(1 for w in words if KAZAKH_LETTERS.intersection(w))
    return bool(words) and kazakh / len(words) >= KAZAKH_LINE_SHARE


def voice_segments(text: str, language: str) -> list[tuple[str, str]]:
    """(text, voice) lines of a reply. A Russian line that only names "қазақша" stays Russian."""
    if language != "ru" or not KAZAKH_LETTERS.intersection(text):
        return [(text, language)]
    out: list[tuple[str, str]] = []
    for line in (ln.strip() for ln in text.splitlines()):
        if line:
            out.append((line, "kk" if _is_kazakh(line) else "ru"))
    return out
