"""How an operator reply is voiced: a Kazakh line inside a Russian reply (the bilingual greeting and
re-prompts) gets the kk voice, and a Russian entry quoted in a Kazakh reply (the kk -> ru fallback) the ru voice,
so each part is read by a voice that knows its letters. A reply of several lines is voiced a line at a time (a
knowledge-base answer: its source, each sentence, "anything else?"; `answers.py`), each line its own synthesis,
so the TTS cache holds each line whatever lines a reply puts together. Pure."""

from __future__ import annotations

KAZAKH_LETTERS = frozenset("әғқңөұүһіӘҒҚҢӨҰҮҺІ")
KAZAKH_LINE_SHARE = 0.3  # a line where this share of the words has Kazakh-only letters is Kazakh
RUSSIAN_LINE_WORDS = 3


def _is_kazakh(line: str) -> bool:
    words = line.split()
    kazakh = sum(1 for w in words if KAZAKH_LETTERS.intersection(w))
    return bool(words) and kazakh / len(words) >= KAZAKH_LINE_SHARE


def _is_russian(line: str) -> bool:
    """A line of a Kazakh reply with no Kazakh-only letter and a few words: a quoted Russian entry's sentence. (Each
    line is judged alone, so a line gets the same voice in whatever reply it is said: its cache key is one.)"""
    return not KAZAKH_LETTERS.intersection(line) and len(line.split()) >= RUSSIAN_LINE_WORDS


def voice_segments(text: str, language: str) -> list[tuple[str, str]]:
    """(text, voice) lines of a reply, a segment each. A Russian line that only names "қазақша" stays Russian. In
    a Kazakh reply of several lines, a Russian line (an entry read out from the Russian knowledge base) gets the ru
    voice."""
    if "\n" not in text.strip() and (language != "ru" or not KAZAKH_LETTERS.intersection(text)):
        return [(text, language)]
    lines = [ln for ln in (x.strip() for x in text.splitlines()) if ln]
    if language == "kk":
        return [(ln, "ru" if _is_russian(ln) else "kk") for ln in lines]
    if language != "ru":
        return [(ln, language) for ln in lines]
    return [(ln, "kk" if _is_kazakh(ln) else "ru") for ln in lines]
