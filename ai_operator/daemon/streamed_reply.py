"""A model's answer spoken while it streams: `StreamedReply` takes the answer's text as it arrives, cuts it into
sentences (or long clauses: `SentenceBuffer`, pure) and feeds each one, once complete, to one streamed utterance
of the call's speaker, so the caller hears the first sentence while the model writes the rest. The first piece
is shorter: its first whole words, as few as make `FIRST_PIECE_CHARS` characters (about 0.8 s of speech: long
enough that the next piece's TTS has answered before they are said), so the TTS starts before the model has
written a clause, when the model writes fast enough (`FAST_CHARS_PER_S`) for the rest to be ready in time.

The policy still has the last word: when its reply to the turn is the model's text (`matches`), the call
`finish`es this utterance (`speaks`); any other reply is said instead (which cuts it), and with no reply at all the
call `abandon`s it. A barge-in
cuts the utterance (the speaker's `cut`); the next piece of text then answers False, which stops the model.
"""

from __future__ import annotations

import re
import time
from typing import Protocol

SENTENCE_END = re.compile(r"[.!?…;:]+[\"»)\]]*\s+|\n+")
CLAUSE_END = re.compile(r",\s+")
MIN_CLAUSE_CHARS = 40  # a clause this long is spoken on its own (a shorter one waits for more of its sentence)
# the answer's first piece is spoken once its whole words make this many characters (or a sentence, if shorter):
# the caller's wait includes the model writing it (about 25 ms a token), and a first clause runs to 10-20 tokens;
# two words of a typical answer (a 9-letter and a 8-letter word: 4-6 tokens, 0.7-0.9 s of speech).
# Shorter would be choppy: the next piece's TTS (asked when this one's audio is all in, ~300 ms to its first
# byte) must answer before these words are said - one word (0.3-0.5 s) leaves the caller a gap
FIRST_PIECE_CHARS = 12
# ... while the model writes at least this fast (about four times as fast as its words are spoken): a slower model
# would leave the caller waiting, after so short a piece, for the next one
FAST_CHARS_PER_S = 60.0


WORD = re.compile(r"\S+\s+")  # a whole word (the whitespace after it says it is whole)


class SentenceBuffer:
    """Text in, complete sentences out (pure); the first piece is its first whole words that make `first_chars`
    characters (0: no short first piece)."""

    def __init__(self, min_clause_chars: int = MIN_CLAUSE_CHARS, first_chars: int = FIRST_PIECE_CHARS) -> None:
        self.min_clause_chars = min_clause_chars
        self._first_chars = first_chars
        self.quick_first = True  # the first piece may be its first words (False: the model is too slow for that)
        self._text = ""

    def push(self, text: str) -> list[str]:
        """The sentences (or long clauses) `text` completed, in order."""
        self._text += text
        out: list[str] = []
        while True:
            cut = self._cut()
            if cut is None:
                return out
            piece, self._text = self._text[:cut], self._text[cut:]
            if piece.strip():
                out.append(piece)
                self._first_chars = 0

    def _first_words(self) -> int | None:
        """Where the first piece's words end, once they are whole and long enough."""
        if self._first_chars <= 0 or not self.quick_first:
            return None
        start = len(self._text) - len(self._text.lstrip())
        return next((m.end() for m in WORD.finditer(self._text, start)
                     if len(self._text[start:m.end()].rstrip()) >= self._first_chars), None)

    def _cut(self) -> int | None:
        found = SENTENCE_END.search(self._text)
        words = self._first_words()
        if found is not None or words is not None:
            return min(end for end in (found.end() if found else None, words) if end is not None)
        for clause in CLAUSE_END.finditer(self._text):
            if clause.start() >= self.min_clause_chars:
                return clause.end()
        return None

    def flush(self) -> str:
        """What is left (the end of the answer)."""
        rest, self._text = self._text, ""
        return rest


class StreamSpeaker(Protocol):
    def open(self, language: str) -> str: ...

    def feed(self, utterance_id: str, text: str) -> bool: ...

    def finish(self, utterance_id: str) -> None: ...

    def is_active(self, utterance_id: str) -> bool: ...

    def cut(self) -> str | None: ...


def _words(text: str) -> str:
    return " ".join(text.split())


class StreamedReply:
    """One streamed model answer on its way to the caller (see the module docstring); the model's text sink."""

    def __init__(self, speaker: StreamSpeaker, language: str) -> None:
        self.speaker = speaker
        self.language = language
        self.utterance_id: str | None = None
        self.first_text_at: float | None = None  # perf_counter(), for the turn's model stage
        self.started_at: float | None = None  # monotonic, for the turn's later stages
        self._buffer = SentenceBuffer()
        self._text: list[str] = []
        self._chars = 0
        self._began: float | None = None  # perf_counter() of the model's first text
        self.stopped = False  # the turn was withdrawn (`early_turn.py`): nothing more of it is said

    def __call__(self, text: str) -> bool:
        """A piece of the model's answer; False: the caller barged in, stop the model."""
        if self.stopped or (self.utterance_id is not None and not self.speaker.is_active(self.utterance_id)):
            return False
        self._text.append(text)
        now = time.perf_counter()
        self._began = now if self._began is None else self._began
        self._chars += len(text)
        self._buffer.quick_first = self._chars >= FAST_CHARS_PER_S * (now - self._began)
        return all(self._say(sentence) for sentence in self._buffer.push(text))

    def _say(self, sentence: str) -> bool:
        if self.utterance_id is None:
            self.utterance_id = self.speaker.open(self.language)
            self.first_text_at, self.started_at = time.perf_counter(), time.monotonic()
        return self.speaker.feed(self.utterance_id, sentence)

    def speaks(self, reply_text: str, language: str) -> bool:
        """The policy's reply is the model's text (whitespace aside) in this language; else this answer is
        abandoned (the speaker's `say` of the reply cuts what had started)."""
        return bool(self._text) and language == self.language and _words(reply_text) == _words("".join(self._text))

    def finish(self) -> str | None:
        """The rest of the answer to the speaker, and no more; the utterance id (None: nothing was said)."""
        rest = self._buffer.flush()
        if rest.strip():
            self._say(rest)
        if self.utterance_id is not None:
            self.speaker.finish(self.utterance_id)
        return self.utterance_id

    def abandon(self) -> None:
        """The policy said something else: what was started stops now ."""
        if self.utterance_id is not None and self.speaker.is_active(self.utterance_id):
            self.speaker.cut()
