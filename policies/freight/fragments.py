"""Whether a vendor's transcript ends where more is still to come: `utterance_may_continue`.

Owns the turn-boundary guard of the freight policy (the turn holder in ai_operator/turn_boundary.py holds such a
fragment for the continuation and merges it before anything is decided). A transcript may continue when it ends
- on an open punctuation mark ("...", ",", "-"), or on a number word a multiplier may still follow ("तेईस",
  "साढ़े", "23"), or on a range word ("बाईस से");
- on a hedge, a connective, a link word or a lower bound (लगभग, करीब, तो, और, का, तक, पे, around, about, "would
  be", "at least", "se upar"), on "bas" (just) before any figure, on a figure taken back ("bees nahi ..."), or on
  a future form right after one ("तो होगा", "matlab toh hoga"); or when it is openers alone ("देखिए जी",
  "dekho bhai"): what he means to say is still to come;
- on the rate still to be named: a rate word ("रेट", "भाड़ा", "price", "इसका", "total", "मेरी तरफ़ से") followed
  only by copulas, future forms and fillers ("मेरा रेट है", "rate hoga", "तो रेट रहेगा", "iska lagega",
  "my rate would be", "the price for this is", "rate hai sir ji"), with no money figure anywhere in the turn
  ("pachees hazaar rate hai" and "यही रेट है" are complete, "tell me your price" asks; "बीस टन का रेट होगा" is
  not: tonnes are no money).
A closing mark (?, ।, ., !) ends it. `utterance_complete` is the other side, asked at a short pause: a short
turn that does not dangle is whole ("हाँ जी", "पच्चीस हज़ार पाँच सौ", "ok sir"), so the call may answer it then;
anything longer, or dangling, waits for the normal end of the utterance. Pure: no I/O.
"""

from __future__ import annotations

from policies.freight.clauses import NEGATORS
from policies.freight.figures import scan
from policies.freight.numerals import Token, tokenize
from policies.freight.spelling import key


def _set(*words: str) -> frozenset[str]:
    return frozenset(key(w) for w in words)


# A text ending on one of these is a fragment ("तो मेरा rate लगभग ...", "it would be").
DANGLING_WORDS = _set(
    "लगभग", "करीब", "क़रीब", "तकरीबन", "तक़रीबन", "तो", "कि", "और", "या", "मेरा", "मेरी", "हमारा", "हमारी",
    "का", "की", "के", "से", "में", "पर", "को", "लेकिन", "मगर", "मतलब", "यानी", "रेट", "rate", "भाड़ा", "किराया",
    "around", "about", "approx", "approximately", "like", "is", "and", "or", "my", "the", "but", "so", "lagbhag",
    "karib", "to", "mera", "be", "roughly", "nearly", "almost", "of", "at", "than", "least", "minimum", "तकरीबन",
    "takriban", "करीबन", "kariban", "अंदाजन", "andajan", "यही", "yahi",
    "ऊपर", "upar", "uper", "above", "ज्यादा", "zyada", "jyada", "ziada",  # a lower bound: "bees se upar ..."
    "तक", "tak", "पे", "pe", "वही", "wahi", "vahi", "वोही", "wohi",  # "delhi se jaipur tak ...", "is gaadi pe ..."
    "समझो", "samjho", "samjhiye", "समझिए", "समझिये", "samjhlo", "समझ लो",  # "rate to aap samjho ..."
)  # fmt: skip
# Words whose figure follows them: the rate itself, "of this" ("इसका लगेगा"), the total, "from my side".
RATE_SUBJECTS = _set(
    "रेट", "rate", "rates", "भाड़ा", "bhada", "किराया", "kiraya", "price", "प्राइस", "charge", "charges", "चार्ज",
    "quote", "quotation", "भाव", "bhav", "cost", "total", "टोटल", "कुल", "kul", "amount", "अमाउंट", "रकम", "rakam",
    "पैसे", "paise", "इसका", "iska", "इसके", "iske", "इसकी", "iski", "इसमें", "isme", "ismein", "उसका", "uska",
    "तरफ", "taraf", "side", "freight", "फ्रेट",
)  # fmt: skip
# What may stand after a rate word while its figure is still to come: copulas and future forms, fillers, hedges,
# links ("rate rahega aapke liye", "dekho is route ka kiraya hoga", "the total would be like").
PENDING_TAIL = _set(
    "है", "हैं", "hai", "hain", "होगा", "होगी", "होंगे", "hoga", "hogi", "honge", "रहेगा", "रहेगी", "रहेंगे", "rahega",
    "rahegi", "rahenge", "लगेगा", "लगेगी", "लगेंगे", "lagega", "lagegi", "lagenge", "लगता", "लगती", "lagta", "lagti",
    "बनेगा", "banega", "बनता", "banta", "बनती", "banti", "बैठेगा", "baithega", "पड़ेगा", "padega", "जाएगा", "jayega",
    "जायेगा", "आएगा", "aayega", "ayega", "होता", "hota", "होती", "hoti", "रहता", "rehta", "rahta", "आता", "aata",
    "is", "are", "will", "would", "be", "'ll", "it'll", "it", "comes", "come", "to", "around", "about", "like",
    "for", "you", "this", "load", "the", "my", "our", "of", "from", "side", "जी", "ji", "सर", "sir", "भाई", "bhai",
    "तो", "हम्म", "hmm", "umm", "उम्म", "uh", "वैसे", "vaise", "लगभग", "करीब", "तकरीबन", "कुछ", "kuch", "का", "की",
    "के", "ka", "ki", "ke", "से", "se", "में", "mein", "इस", "लोड", "आपके", "aapke", "आपका", "aapka", "आपको", "aapko",
    "लिए", "liye", "मेरी", "meri", "हमारी", "hamari", "मेरा", "mera", "हमारा", "hamara", "ट्रिप", "trip", "रूट",
    "route", "basically", "approx", "approximately", "roughly",
    # how he addresses us ("rate to bhaiya ..."); Bhojpuri, Bengali and Marathi futures ("भाड़ा होई", "rate lagi")
    "भैया", "bhaiya", "साहब", "sahab", "saab", "madam", "मैडम", "paaji", "yaar", "यार", "होई", "hoi", "होइ", "lagi",
    "लगी", "लागी", "padi", "पड़ी", "bani", "बनी", "hobe", "asel", "असेल", "padel", "पडेल",
    "आप", "aap", "samjho", "समझो", "samjhiye", "समझिए", "lo", "लो", "maan", "मान",  # "rate to aap samjho ..."
)  # fmt: skip
# Before the rate word, these make it a rate already named or asked for: "यही रेट है", "tell me your price".
NAMED_BEFORE = _set("यही", "वही", "yahi", "wahi", "vahi", "same", "that", "your", "आपका", "आपकी", "आपके", "aapka",
                    "aapki", "aapke", "तुम्हारा", "tumhara", "kya", "क्या", "what", "कितना", "kitna")  # fmt: skip
KAM_SE_KAM = (key("कम"), key("से"), key("कम"))  # "कम से कम" (at least)
# "तो होगा", "toh rahega", "phir banega": a link, then a future form, and nothing named yet.
LINKS = _set("तो", "to", "toh", "फिर", "phir", "fir", "मतलब", "matlab", "वो", "woh", "wo", "तब", "tab")
FUTURES = _set("होगा", "hoga", "होगी", "hogi", "रहेगा", "rahega", "लगेगा", "lagega", "बनेगा", "banega", "पड़ेगा",
               "padega", "बैठेगा", "baithega", "जाएगा", "jayega", "होई", "hoi", "lagi", "hobe")  # fmt: skip
# "hamara to bas ...", "bhai sahab bas ...": "bas" (just) at the end of a turn with no figure yet
JUST = _set("बस", "bas", "bus")
# ... but "nahi bas", "theek hai bas", "ok bas" are whole: a no or a yes, and that is all
SETTLED = _set("नहीं", "नही", "nahi", "nahin", "ना", "na", "no", "ठीक", "theek", "thik", "हां", "हाँ", "haan", "han",
               "ok", "okay", "ओके", "done", "चलो", "chalo", "बात", "baat", "bye", "बाय")  # fmt: skip
# A turn of openers alone ("देखिए जी", "dekho bhai", "arre suniye", "look sir"): what he means to say is to come.
OPENERS = _set("देखिए", "देखो", "dekhiye", "dekhie", "dekho", "सुनिए", "suniye", "सुनो", "suno", "अरे", "arre",
               "मतलब", "matlab", "look", "listen", "well")  # fmt: skip
ADDRESS = _set("जी", "ji", "भाई", "bhai", "भैया", "bhaiya", "सर", "sir", "साहब", "sahab", "saab", "madam", "मैडम",
               "paaji", "पाजी", "yaar", "यार")  # fmt: skip
_NUMBER_KINDS = ("unit", "en_unit", "en_tens", "frac_mod", "hundred")
_OPEN_ENDINGS = ("...", "…", ",", "-")
_CLOSED_ENDINGS = ("?", "।", ".", "!", "॥")
# Words up to which a turn that does not dangle is taken as whole at a short pause: a vendor's short answers (yes,
# no, a rate, "call later") fit; a longer turn may be a sentence with more to come, so it waits for the end silence.
SHORT_TURN_WORDS = 6


def _rate_pending(text: str, toks: list[Token]) -> bool:
    """A rate word followed only by copulas, fillers and links, and no money figure in the turn."""
    words = [t.text for t in toks]
    subject = max((i for i, w in enumerate(words) if w in RATE_SUBJECTS), default=-1)
    if subject < 0 or not all(w in PENDING_TAIL for w in words[subject + 1 :]):
        return False
    if subject > 0 and words[subject - 1] in NAMED_BEFORE:
        return False
    return all(fig.measure or fig.phone for fig in scan(text, toks)[1])


def utterance_may_continue(text: str) -> bool:
    """True when `text` ends dangling (see the module docstring)."""
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
    if last.text in DANGLING_WORDS or tuple(t.text for t in toks[-3:]) == KAM_SE_KAM:
        return True
    if last.text in NEGATORS and len(toks) > 1 and toks[-2].kind in (*_NUMBER_KINDS, "num", "big"):
        return True  # "rate hoga bees nahi ...": the figure he means is still to come
    words = [t.text for t in toks]
    if any(w in OPENERS for w in words) and all(w in OPENERS or w in ADDRESS for w in words):
        return True  # "देखिए जी", "dekho bhai"
    if words[-1] in JUST and not any(w in SETTLED for w in words) and not scan(stripped, toks)[1]:
        return True  # "hamara to bas ...": the figure comes after "just"
    if len(words) >= 2 and words[-1] in FUTURES and words[-2] in LINKS and not scan(stripped, toks)[1]:
        return True  # "तो होगा", "matlab toh hoga"
    return _rate_pending(stripped, toks)


def utterance_complete(text: str) -> bool | None:
    """True when `text` is a short turn that does not dangle; False when it dangles; None otherwise (longer)."""
    stripped = (text or "").strip()
    if not stripped:
        return None
    if utterance_may_continue(stripped):
        return False
    return True if len(stripped.split()) <= SHORT_TURN_WORDS else None
