"""What a vendor's turn is, in words: abuse, wrong number, voicemail, callback, farewell, hearing problem,
question, asking our rate, yes, no, bare acknowledgement - and whether the turn ends dangling.

Owns the keyword tables (Devanagari, Hinglish, English, matched on normalised tokens) and
`utterance_may_continue`. Pure: no I/O. The phase machine (session.py) decides what each one means where.
"""

from __future__ import annotations

from dataclasses import dataclass

from policies.freight.numerals import normalize, tokenize


def _phrases(*items: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(normalize(i).split()) for i in items)


ABUSE = _phrases(
    "साला", "साले", "साली", "कमीना", "कमीने", "हरामी", "हरामखोर", "बेवकूफ", "बेवकूफ़", "गधा", "गधे", "उल्लू",
    "चूतिया", "चुतिया", "भोसड़ी", "मादरचोद", "बहनचोद", "कुत्ता", "कुत्ते", "बकवास", "चुप", "भाड़ में", "दिमाग खराब",
    "saala", "sala", "kamina", "kamine", "chutiya", "bc", "mc", "bkl", "idiot", "stupid", "fuck", "fucking",
    "bastard", "shut up", "bloody", "nonsense", "harami",
)  # fmt: skip
WRONG_NUMBER = _phrases(
    "गलत नंबर", "ग़लत नंबर", "गलत नम्बर", "रॉन्ग नंबर", "रांग नंबर", "wrong number", "galat number", "कोई नहीं है",
    "यहां कोई", "मैं वो नहीं", "वो नहीं हूं", "नहीं जानता", "नहीं जानती", "किसको चाहिए", "who is this",
)  # fmt: skip
VOICEMAIL = _phrases(
    "voicemail", "वॉइसमेल", "वॉयस मेल", "voice mail", "संदेश छोड़", "message छोड़", "leave a message", "बीप", "beep",
    "उपलब्ध नहीं", "not available", "not reachable", "switched off", "स्विच ऑफ", "पहुंच से बाहर", "व्यस्त है",
    "आप जिस नंबर", "the number you", "नेटवर्क क्षेत्र",
)  # fmt: skip
CALLBACK = _phrases(
    "बाद में", "थोड़ी देर में", "थोड़ी देर बाद", "call back", "callback", "कॉल बैक", "later", "baad mein", "busy", "बिज़ी",
    "बिजी", "व्यस्त हूं", "मीटिंग में", "driving", "गाड़ी चला रहा", "कल बात", "शाम को बात", "फिर कभी",
)  # fmt: skip
FAREWELL = _phrases(
    "bye", "बाय", "अलविदा", "रखता हूं", "रखती हूं", "रखता हूँ", "फोन रख", "फ़ोन रख", "रखिए", "रख दो", "रखो",
    "काटता हूं", "काट दो", "काटो", "goodbye", "good bye", "नहीं करना", "interest नहीं", "इंटरेस्ट नहीं",
)  # fmt: skip
HEARING = _phrases(
    "आवाज़ नहीं", "आवाज नहीं", "आवाज़ कट", "सुनाई नहीं", "क्या बोला", "क्या बोली", "क्या कहा", "फिर से बोलिए",
    "फिर से बोलो", "दोबारा बोलिए", "दोबारा बोलो", "repeat", "can't hear", "cannot hear", "समझ नहीं आया",
    "pardon", "sorry what", "हेलो हेलो", "hello hello", "क्या?", "what?", "सुनाई नहीं दे",
)  # fmt: skip
QUESTION_WORDS = frozenset(
    normalize(w)
    for w in (
        "कितना", "कितने", "कितनी", "कहां", "कहाँ", "कब", "कौन", "कैसे", "किधर", "कौनसा", "कौनसी", "किसका",
        "what", "when", "where", "which", "how", "who", "kitna", "kab", "kaun", "kahan", "kaise",
    )
)  # fmt: skip
RHETORICAL = _phrases("क्या करें", "क्या करे", "क्या करूं", "क्या करूँ", "kya karein", "kya karen")
OUR_RATE = _phrases(
    "बजट", "budget", "दोगे", "देंगे", "दोगी", "देंगी", "दीजिएगा", "offer", "ऑफर", "आपका रेट", "आपका rate",
    "आप बताइए", "आप बताओ", "आप बोलिए", "आप बोलो", "your rate", "your budget", "कितना दे", "कितने में दे",
    "आपकी तरफ", "आप कितना",
)  # fmt: skip
YES = _phrases(
    "हां", "हाँ", "हा", "हान", "जी", "हांजी", "जी हां", "ठीक", "ठीक है", "ok", "okay", "ओके", "yes", "yeah", "haan",
    "han", "ji", "theek", "done", "डन", "चलेगा", "चलो", "चलिए", "पक्का", "बिल्कुल", "बिलकुल", "मंजूर", "मंज़ूर",
    "sure", "अच्छा", "सही", "हो जाएगा", "कर देंगे", "कर दूंगा", "बोलिए", "बोलो", "बताइए", "बताओ",
    "deal", "डील", "फाइनल", "final", "accha", "bilkul",
)  # fmt: skip
FILLER = _phrases(
    "है", "हैं", "सर", "sir", "भाई", "भैया", "मैडम", "madam", "ma'am", "बस", "hai", "जी", "हम्म", "hmm", "अरे"
)
HELLO = _phrases("हेलो", "हैलो", "हलो", "hello", "helo", "hallo")
# "ना" is also the emphatic particle ("कर दीजिए ना"): it means no only as the first word.
NO = _phrases(
    "नहीं", "नही", "no", "nahi", "nahin", "नो", "मुश्किल", "not", "nope", "नहीं होगा", "नहीं चलेगा",
)  # fmt: skip
NOT_NO = _phrases(
    "कोई बात नहीं", "कोई दिक्कत नहीं", "कोई problem नहीं", "no problem", "दिक्कत नहीं", "problem नहीं",
    "टेंशन नहीं", "tension नहीं", "कोई टेंशन नहीं", "ना ना ठीक है",
)  # fmt: skip
ACK_EXTRA = _phrases(
    "धन्यवाद", "शुक्रिया", "thank", "thanks", "thank you", "नमस्ते", "नमस्कार", "बढ़िया", "great", "fine",
)  # fmt: skip
RIGHT_PERSON = _phrases("मैं ही", "मैं बोल रहा", "बोल रहा हूं", "बोल रहा हूँ", "speaking", "मैं हूं", "मैं हूँ")

# Turn-boundary: a text ending on one of these is a fragment ("तो मेरा rate लगभग ...").
DANGLING_WORDS = frozenset(
    normalize(w)
    for w in (
        "लगभग", "करीब", "क़रीब", "तकरीबन", "तक़रीबन", "तो", "कि", "और", "या", "मेरा", "मेरी", "हमारा", "हमारी",
        "का", "की", "के", "से", "में", "पर", "को", "लेकिन", "मगर", "मतलब", "यानी", "रेट", "rate", "भाड़ा", "किराया",
        "around", "about", "approx", "approximately", "like", "is", "and", "or", "my", "the", "but", "so", "lagbhag",
        "karib", "to", "mera",
    )
)  # fmt: skip
_NUMBER_KINDS = ("unit", "en_unit", "en_tens", "frac_mod", "hundred")
_OPEN_ENDINGS = ("...", "…", ",", "-")
_CLOSED_ENDINGS = ("?", "।", ".", "!", "॥")


def words(text: str) -> list[str]:
    """Normalised word tokens (numbers and punctuation dropped, '?' kept)."""
    return [t.text for t in tokenize(text) if t.kind not in ("num", "dash")]


_PHRASE_INDEX: dict[int, dict[str, tuple[tuple[str, ...], ...]]] = {}  # id(table) -> first word -> phrases


def _index(phrases: tuple[tuple[str, ...], ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The phrases of a (module-level, immutable) table grouped by their first word; built once per table."""
    index = _PHRASE_INDEX.get(id(phrases))
    if index is None:
        grouped: dict[str, list[tuple[str, ...]]] = {}
        for phrase in phrases:
            if phrase:
                grouped.setdefault(phrase[0], []).append(phrase)
        index = _PHRASE_INDEX[id(phrases)] = {k: tuple(v) for k, v in grouped.items()}
    return index


def _has(tokens: list[str], phrases: tuple[tuple[str, ...], ...]) -> bool:
    """Whether any phrase of the table occurs in `tokens` (looked up by each token, not by scanning the table)."""
    index = _index(phrases)
    for i, token in enumerate(tokens):
        for phrase in index.get(token, ()):
            n = len(phrase)
            if n == 1 or tuple(tokens[i : i + n]) == phrase:
                return True
    return False


def _without(tokens: list[str], phrases: tuple[tuple[str, ...], ...]) -> list[str]:
    out = list(tokens)
    for phrase in phrases:
        n = len(phrase)
        i = 0
        while i <= len(out) - n:
            if tuple(out[i : i + n]) == phrase:
                del out[i : i + n]
            else:
                i += 1
    return out


@dataclass(frozen=True)
class Intent:
    """Every reading of one turn; the phase machine picks the ones that matter in its phase."""

    abuse: bool
    wrong_number: bool
    voicemail: bool
    callback: bool
    farewell: bool
    hearing: bool
    question: bool
    our_rate: bool
    yes: bool
    no: bool
    bare_ack: bool  # nothing but acknowledgement words ("हां जी", "ठीक है")
    hello_only: bool  # nothing but "हेलो"
    right_person: bool
    acknowledgement: bool  # yes, thanks, bye, namaste: enough to close after the wind-down


def classify(text: str) -> Intent:
    """Read one vendor turn."""
    toks = words(text)
    plain = [t for t in toks if t != "?"]
    no_toks = _without(plain, NOT_NO)
    no = _has(no_toks, NO) or no_toks[:1] == ["ना"]
    yes = (_has(plain, YES) or _has(plain, NOT_NO)) and not no
    hearing = _has(toks, HEARING) or (
        len(plain) <= 1 and "?" in toks and plain[:1] in ([], ["क्या"], ["what"])
    )
    rhetorical = _has(plain, RHETORICAL)  # "क्या करें, डीज़ल महंगा है" explains, it does not ask
    question = "?" in toks or (
        not rhetorical
        and (any(t in QUESTION_WORDS for t in plain) or plain[:1] == ["क्या"] or plain[-1:] == ["क्या"])
    )
    ack_words = [t for t in plain if not any(_has([t], table) for table in (YES, ACK_EXTRA, HELLO, FILLER))]
    bare_ack = bool(plain) and not ack_words and not no
    farewell = _has(plain, FAREWELL)
    return Intent(
        abuse=_has(plain, ABUSE),
        wrong_number=_has(plain, WRONG_NUMBER),
        voicemail=_has(plain, VOICEMAIL),
        callback=_has(plain, CALLBACK),
        farewell=farewell,
        hearing=hearing,
        question=question and not hearing,
        our_rate=_has(plain, OUR_RATE),
        yes=yes,
        no=no,
        bare_ack=bare_ack,
        hello_only=bool(plain) and all(_has([t], HELLO) for t in plain),
        right_person=_has(plain, RIGHT_PERSON) or yes,
        acknowledgement=(yes or bare_ack or farewell or _has(plain, ACK_EXTRA)) and not question,
    )


def utterance_may_continue(text: str) -> bool:
    """True when `text` ends dangling: a hedge (लगभग, करीब, around), a connective (तो, और), "मेरा rate", or a
    number word a multiplier may still follow ("तेईस", "साढ़े", "23"). Closed by ?, ।, . or !"""
    stripped = (text or "").strip()
    if not stripped:
        return False
    if stripped.endswith(_OPEN_ENDINGS):
        return True
    if stripped.endswith(_CLOSED_ENDINGS):
        return False
    toks = tokenize(stripped)
    if not toks:
        return False
    last = toks[-1]
    if last.kind in _NUMBER_KINDS:
        return True
    if last.kind == "num":
        return last.value < 1000 and last.value == int(last.value)
    if last.kind == "range":
        return True
    return last.text in DANGLING_WORDS
