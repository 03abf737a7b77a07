"""Every reply the operator can say without a model, and how it reads out a knowledge-base entry, for the TTS
cache to synthesise ahead (`ListsFixedReplies`, `AnswersFromKnowledge` in ai_operator/dialogue/). Pure.

The lists are built from the same catalog and the same functions the session speaks with, so a prewarmed text
is exactly the text a call asks for: each catalog line in each language and both languages together (before a
choice), and the composites the selection steps build ("Хорошо, продолжаем на русском." followed by the region
prompt, the Almaty question or "Регион: <region>. ..." for each of the 20 regions). A knowledge-base answer is
spoken a line at a time (the source, each sentence read, "anything else?": `answers.answer_reply`), so an entry
is listed with every line any question may read from it (`answers.answer_lines`), whichever sentences a question
picks; a Russian entry is also read to a Kazakh caller (the kk -> ru fallback, announced first).
"""

from __future__ import annotations

from dataclasses import replace

from ai_operator.dialogue import KnowledgeHit
from policies.operator.answers import answer_lines, answer_reply
from policies.operator.catalog import MESSAGES, bilingual, say
from policies.operator.language import LANGUAGES
from policies.operator.region_data import REGIONS

FALLBACK_FOR: dict[str, tuple[str, ...]] = {"ru": ("kk",)}  # an entry in ru is also read to kk callers
REGION_KEY = "ready"  # the one catalog line with a region in it
_COMPOSED_AFTER_LANGUAGE = ("region_prompt", "region_clarify_almaty")  # said after "language_changed"


def _plain_keys() -> list[str]:
    """Catalog keys whose line has no value to fill in."""
    return [key for key, lines in MESSAGES.items() if not any("{" in line for line in lines.values())]


def fixed_replies() -> list[tuple[str, str]]:
    """(text, language) of every reply made of catalog lines only, in both languages; before a choice the
    bilingual lines (voiced "ru": the Kazakh line gets its own voice)."""
    replies: list[tuple[str, str]] = []
    for lang in LANGUAGES:
        changed = say("language_changed", lang)
        replies += [(f"{changed} {say(key, lang)}", lang) for key in _COMPOSED_AFTER_LANGUAGE]
        for region in REGIONS:
            ready = say(REGION_KEY, lang, region=region.name(lang))
            replies += [(ready, lang), (f"{changed} {ready}", lang)]
        replies += [(say(key, lang), lang) for key in _plain_keys()]
    replies += [(bilingual(key), "ru") for key in _plain_keys()]
    return replies


def knowledge_replies(entry: KnowledgeHit) -> list[tuple[str, str]]:
    """The answer read from `entry` in its own language, then as a fallback in the languages that fall back to
    it, each with every line a question may read from the entry."""
    if entry.language not in LANGUAGES:
        return []  # never searched in that language: never read out
    lines = answer_lines(entry.text)
    replies = [(answer_reply(entry, entry.language, lines), entry.language)]
    fallback = replace(entry, fallback=True)
    replies += [(answer_reply(fallback, lang, lines), lang) for lang in FALLBACK_FOR.get(entry.language, ())]
    return replies
