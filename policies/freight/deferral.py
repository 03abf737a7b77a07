"""Whether a vendor is putting the call off: busy now, call later, or "let me think and tell you".

Owns `is_callback(tokens)` over spelling keys (Devanagari, Hinglish and English alike), built from four forms:
- a busy state: "busy हूं", "मीटिंग में हूँ", "गाड़ी चला रहा हूं", "driving", "रास्ते में हूं";
- not now: "अभी नहीं", "abhi time nahi hai", "बात नहीं कर सकता", "can't talk now";
- later + talking: a time to come ("बाद में", "kal", "शाम को", "थोड़ी देर में", "later", "tomorrow", "घंटे भर
  बाद") with a verb of talking or calling ("बात", "phone", "कॉल", "करना", "बताऊंगा") - "kal phone karna",
  "sham ko baat karte hain", "call me later"; a past tense ("कल बात हुई थी") is no callback;
- think, then tell: a verb of thinking or checking with its participle ("सोच कर", "puch ke", "check karke",
  "देख के") and a verb of telling or calling ("बताऊँगा", "batata hoon", "call karta hoon"), or the English
  "let me think", "get back to you", "call you back".
Each form is negation-aware ("busy नहीं हूं", "बाद में मत करना", "not busy" are no callback) and is read on the
clause the vendor finally said (clauses.last_clause). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from policies.freight.clauses import find, find_all, negated, table
from policies.freight.spelling import key

BUSY = table(
    "busy", "बिज़ी", "बिजी", "व्यस्त", "मीटिंग में", "meeting mein", "meeting me", "in a meeting", "meeting",
    "मीटिंग", "driving", "ड्राइविंग", "ड्राइव कर", "गाड़ी चला रहा", "गाड़ी चला रही", "gaadi chala raha",
    "gadi chala raha", "गाड़ी चला रहे", "रास्ते में हूं", "raste mein hoon", "रास्ते में हूँ", "सफ़र में", "safar mein",
    "travel kar raha", "ट्रैवल कर रहा", "खाना खा रहा", "khana kha raha", "पूजा में", "hospital mein", "अस्पताल में",
    "शादी में", "shaadi mein", "काम में हूं", "kaam mein hoon", "kaam me hu", "सो रहा था", "नहा रहा", "site par hoon",
    "loading par hoon", "लोडिंग पर हूं", "बाहर हूं", "bahar hoon",
)  # fmt: skip
NOT_NOW = table(
    "अभी नहीं", "abhi nahi", "abhi nahin", "not now", "अभी टाइम नहीं", "abhi time nahi", "time nahi hai",
    "टाइम नहीं है", "समय नहीं है", "samay nahi", "no time", "बात नहीं कर सकता", "बात नहीं कर सकती", "baat nahi kar sakta",
    "baat nahi kar sakti", "बात नहीं हो पाएगी", "can't talk", "cannot talk", "can not talk", "अभी बात नहीं",
    "abhi baat nahi", "abhi mushkil hai", "अभी मुश्किल है", "अभी नहीं हो पाएगा", "free nahi hoon", "फ्री नहीं हूं",
    "free nahi hu",
)  # fmt: skip
LATER = table(
    "बाद में", "baad mein", "baad me", "bad me", "बाद", "baad", "later", "कल", "kal", "tomorrow", "शाम", "sham",
    "evening", "रात", "raat", "night", "परसों", "parson", "थोड़ी देर", "thodi der", "थोड़ी देर में", "कुछ देर",
    "kuch der", "घंटे", "ghante", "ghanta", "hour", "मिनट बाद", "minute baad", "minutes", "दोपहर", "dopahar",
    "afternoon", "सुबह", "subah", "morning", "next week", "अगले हफ्ते", "फिर कभी", "phir kabhi",
    "फुर्सत", "fursat", "free hokar", "फ्री होकर", "free hoke", "फ्री हो के", "बाद मे",
)  # fmt: skip
# Verbs of talking or calling, anywhere in the clause ("kal phone karna", "शाम को बात करते हैं").
TALK = table(
    "फोन", "fon", "phone", "कॉल", "call", "बताऊंगा", "बताऊँगा", "bataunga", "बताएंगे", "bataenge",
    "बता दूंगा", "bata dunga", "बता देंगे", "bata denge", "talk", "speak", "ring", "contact", "संपर्क", "मैसेज",
    "message", "बोलूंगा", "bolunga", "मिलते", "milte", "लगाना", "lagana", "लगाओ", "lagao", "लगाइए", "lagaiye",
    "confirm", "कन्फर्म", "कंफर्म", "inform", "let you know",
)  # fmt: skip
# "बताता हूं" puts off only after the time ("शाम तक बताता हूं"), not before it ("बताता हूं, कल गाड़ी पहुंचेगी").
WEAK_TALK = frozenset(key(w) for w in ("बताता", "batata", "बताती", "batati", "बताते", "batate", "बताऊं", "bataun",
                                      "बोलता", "bolta", "बोलती", "bolti", "बोलते", "bolte"))  # fmt: skip
TALK_NOUNS = frozenset(key(w) for w in ("बात", "baat", "बातचीत"))  # "बात" talks only with कर/हो: not "बात पक्की"
TALK_NOUN_VERBS = ("kar", "ho", "kij", "kr")  # key prefixes: करते, करेंगे, करना, होगी, कीजिए
# A bare verb right after the time to come: "बाद में करना", "kal karo", "shaam ko dekhte hain".
GENERIC_VERBS = frozenset(
    key(w) for w in ("करना", "करो", "कीजिए", "करिए", "करिये", "karna", "karo", "kijiye", "kariye", "करेंगे",
                     "karenge", "करते", "karte", "देखते", "dekhte", "सोचते", "sochte", "बोलना", "bolna", "कर")
)  # fmt: skip
_BRIDGE = frozenset(key(w) for w in ("को", "ko", "में", "mein", "फिर", "phir", "आप", "aap", "मुझे", "mujhe", "हम",
                                     "ham", "तक", "tak", "ही", "hi"))  # fmt: skip
THINK = table("सोच", "soch", "पूछ", "puch", "पूछ", "check", "चेक", "confirm", "कन्फर्म", "कंफर्म", "देख", "dekh",
              "विचार", "vichar", "बात", "baat", "मालूम", "malum", "पता", "pata", "discuss", "डिस्कस")  # fmt: skip
PARTICIPLE = frozenset(key(w) for w in ("कर", "के", "करके", "kar", "ke", "karke", "kr", "krke", "कर के"))
THINK_JOINED = table("sochkar", "sochke", "puchke", "puchkar", "dekhke", "dekhkar", "checkkarke", "सोचकर",
                     "पूछकर", "देखकर", "पूछके", "सोचके", "देखके")  # fmt: skip
TELL = table(
    "बताऊंगा", "बताऊँगा", "बताउंगा", "bataunga", "बताता", "batata", "बताती", "batati", "बताएंगे", "bataenge",
    "बता दूंगा", "bata dunga", "bata denge", "बता देंगे", "बताते", "batate", "बताऊं", "bataun", "bolta", "बोलता",
    "बोलूंगा", "bolunga", "call", "कॉल", "फोन", "phone", "fon", "confirm", "कन्फर्म", "inform",
)  # fmt: skip
THINK_ENGLISH = table(
    "let me think", "i will think", "i'll think", "will think", "think about it", "get back to you",
    "call you back", "call back", "callback", "कॉल बैक", "call me back", "call me later", "call later",
    "let me check", "i will check", "i'll check", "let me confirm", "will let you know", "let you know",
    "revert", "will discuss", "let me discuss", "need to think", "have to think", "सोचना पड़ेगा", "sochna padega",
    "सोचना होगा", "sochna hoga", "विचार करना पड़ेगा", "vichar karna padega", "soch ke batana padega",
)  # fmt: skip
PAST = frozenset(key(w) for w in ("था", "थी", "थे", "tha", "thi", "the", "हुई", "hui", "हुआ", "hua", "किया",
                                  "kiya", "was", "did", "yesterday", "गया", "gaya"))  # fmt: skip


def _talks(tokens: Sequence[str]) -> bool:
    """A verb of talking or calling that nobody negated ("बात करते हैं", "phone karna", "call me")."""
    if find(tokens, TALK, negation=True):
        return True
    for i, tok in enumerate(tokens[:-1]):
        if tok in TALK_NOUNS and tokens[i + 1].startswith(TALK_NOUN_VERBS) and not negated(tokens, i, i + 2):
            return True
    return False


def _later_and_talk(tokens: Sequence[str]) -> bool:
    """A time to come and a verb of talking in the same clause, neither negated nor in the past."""
    if any(t in PAST for t in tokens):
        return False
    later = [(i, j) for i, j in find_all(tokens, LATER) if not negated(tokens, i, j)]
    if not later:
        return False
    for _, j in later:
        while j < len(tokens) and tokens[j] in _BRIDGE:
            j += 1
        if j < len(tokens) and tokens[j] in GENERIC_VERBS and not negated(tokens, j, j + 1):
            return True
    first_later = later[0][1]
    if any(t in WEAK_TALK and k >= first_later and not negated(tokens, k, k + 1) for k, t in enumerate(tokens)):
        return True
    return _talks(tokens)


def _think_then_tell(tokens: Sequence[str]) -> bool:
    """"सोच कर बताऊँगा", "puch ke batata hoon", "check karke call karta hoon", "let me think"."""
    if find(tokens, THINK_ENGLISH, negation=True):
        return True
    thought = any(j < len(tokens) and tokens[j] in PARTICIPLE for _, j in find_all(tokens, THINK))
    thought = thought or find(tokens, THINK_JOINED)
    return thought and find(tokens, TELL, negation=True)


FOR_YEARS = table("saal se", "साल से", "saalon se", "सालों से", "years", "barson se", "बरसों से", "varshon se")


def is_callback(tokens: Sequence[str]) -> bool:
    """Whether this clause puts the call off (see the module docstring). `tokens`: spelling keys."""
    if find(tokens, NOT_NOW):
        return True
    if find(tokens, BUSY, negation=True) and not find(tokens, FOR_YEARS):  # "bees saal se gaadi chala raha hoon":
        return True  # a life's work, not busy now
    return _later_and_talk(tokens) or _think_then_tell(tokens)


