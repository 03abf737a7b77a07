"""What a vendor's turn is, in words: abuse, wrong number, voicemail, callback, farewell, hearing problem,
question, asking our rate (a question back), yes, no, bare acknowledgement, or unknown - and whether the turn
ends dangling.

Owns the phrase tables (Devanagari, Hinglish, English; every word compared by its spelling key, so "haan",
"हाँ" and "हां" are one word) and `classify`, which reads choices (yes/no, callback, farewell, wrong number,
question back) on the clause the vendor finally said (clauses.last_clause: "नहीं नहीं, ठीक है" is a yes) with
negation scope ("ग़लत नंबर नहीं है" is no wrong number), callbacks by deferral.py's grammar, and says `unknown`
when nothing matched. `utterance_may_continue` (fragments.py) is re-exported here. Pure: no I/O. The phase machine decides what each means
where.
"""

from __future__ import annotations

from dataclasses import dataclass

from policies.freight.clauses import NEGATORS, Table, find, find_all, last_clause, negated_spans, table
from policies.freight.deferral import BUSY, LATER, is_callback
from policies.freight.fragments import utterance_may_continue as utterance_may_continue  # re-exported
from policies.freight.numerals import MEASURES, Token, tokenize
from policies.freight.person import read_person, vendor_keys
from policies.freight.refusal import is_refusal
from policies.freight.spelling import key

_phrases = table
FIGURE_KINDS = ("unit", "en_unit", "en_tens", "big", "hundred", "frac_mod")  # the number words of a figure


ABUSE = _phrases(
    "साला", "साले", "साली", "कमीना", "कमीने", "हरामी", "हरामखोर", "बेवकूफ", "बेवकूफ़", "गधा", "गधे", "उल्लू",
    "चूतिया", "चुतिया", "भोसड़ी", "मादरचोद", "बहनचोद", "कुत्ता", "कुत्ते", "बकवास", "चुप", "भाड़ में", "दिमाग खराब",
    "saala", "sala", "kamina", "kamine", "chutiya", "bc", "mc", "bkl", "idiot", "stupid", "fuck", "fucking",
    "bastard", "shut up", "bloody", "nonsense", "harami", "bewakoof", "bevkuf", "ullu", "gadha", "kutta", "bakwas",
)  # fmt: skip
WRONG_NUMBER = _phrases(
    "गलत नंबर", "ग़लत नंबर", "गलत नम्बर", "रॉन्ग नंबर", "रांग नंबर", "wrong number", "galat number", "कोई नहीं है",
    "यहां कोई", "मैं वो नहीं", "वो नहीं हूं", "नहीं जानता", "नहीं जानती", "किसको चाहिए", "rong number",
    "galat no", "wo nahi hoon", "yahan koi nahi", "koi nahi hai", "nahi janta", "main wo nahi",
    # the number changed hands ("pehle unka number tha ab main use karta hoon")
    "number tha pehle", "pehle unka number", "पहले उनका नंबर", "नंबर था पहले", "number tha ye pehle",
    "number badal", "नंबर बदल", "used to be his number", "this number is mine now",
    "not his number anymore", "number ab mera", "नंबर अब मेरा",
)  # fmt: skip
VOICEMAIL = _phrases(
    "voicemail", "वॉइसमेल", "वॉयस मेल", "voice mail", "संदेश छोड़", "message छोड़", "leave a message", "बीप", "beep",
    "उपलब्ध नहीं", "not available", "not reachable", "switched off", "स्विच ऑफ", "पहुंच से बाहर", "व्यस्त है",
    "आप जिस नंबर", "the number you", "नेटवर्क क्षेत्र",
)  # fmt: skip
FAREWELL = _phrases(
    "bye", "बाय", "अलविदा", "रखता हूं", "रखती हूं", "रखता हूँ", "फोन रख", "फ़ोन रख", "रखिए", "रख दो", "रखो",
    "काटता हूं", "काट दो", "काटो", "goodbye", "good bye", "नहीं करना", "interest नहीं", "इंटरेस्ट नहीं",
    "rakhta hoon", "phone rakho", "phone rakhiye", "nahi karna", "interest nahi", "not interested",
)  # fmt: skip
HEARING = _phrases(
    "आवाज़ नहीं", "आवाज नहीं", "आवाज़ कट", "सुनाई नहीं", "क्या बोला", "क्या बोली", "क्या कहा", "फिर से बोलिए",
    "फिर से बोलो", "दोबारा बोलिए", "दोबारा बोलो", "repeat", "can't hear", "cannot hear", "समझ नहीं आया",
    "pardon", "sorry what", "हेलो हेलो", "hello hello", "सुनाई नहीं दे", "awaaz nahi", "awaj nahi",
    "sunai nahi", "kya bola", "kya kaha", "phir se bolo", "phir se boliye", "dobara bolo", "samajh nahi aaya",
)  # fmt: skip
QUESTION_WORDS = frozenset(
    key(w)
    for w in (
        "कितना", "कितने", "कितनी", "कहां", "कहाँ", "कब", "कौन", "कैसे", "किधर", "कौनसा", "कौनसी", "किसका",
        "what", "when", "where", "which", "how", "who", "kitna", "kab", "kaun", "kahan", "kaise", "kidhar", "kitne",
    )
)  # fmt: skip
RHETORICAL = _phrases("क्या करें", "क्या करे", "क्या करूं", "क्या करूँ", "kya karein", "kya karen", "kya karu")
# A question back about our rate ("आप बताओ कितना दोगे", "aap kitna doge", "आपका बजट क्या है", "your offer?").
OUR_RATE = _phrases(
    "बजट", "budget", "दोगे", "दोगी", "doge", "dogi", "offer", "ऑफर", "आपका रेट", "आपका rate", "aapka rate",
    "your rate", "your budget", "your offer", "your price", "कितना दे", "कितने में दे", "kitna de", "kitne mein de",
    "kitna denge", "कितना देंगे", "kya doge", "क्या दोगे", "आपकी तरफ", "aapki taraf", "आपके हिसाब", "aapke hisab",
    "आप कितना", "aap kitna", "आप क्या दे", "aap kya de", "कितना मिलेगा", "kitna milega", "क्या मिलेगा", "kya milega",
    "आप लोग कितना", "aap log kitna", "what will you pay", "how much will you pay", "how much will you give",
    "what do you pay", "what can you pay", "what is your", "what's your", "आपका क्या", "aapka kya", "आपका कितना",
    "aapka kitna", "तुम्हारा रेट", "कितना दीजिएगा", "kitna dijiyega", "कितना पे", "kitna pay",
)  # fmt: skip
# Words that may stand around "आप बताइए" when he just hands the figure back ("pehle aap hi bolo").
HAND_BACK = frozenset(key(w) for w in ("पहले", "pehle", "ही", "hi", "तो", "to", "ना", "na", "सर", "sir", "भाई",
                                       "bhai", "जी", "ji", "अब", "ab", "me", "मुझे", "mujhe", "first"))  # fmt: skip
# The grammar of a question back beyond the table: "you" + a verb of telling + a money question or word
# ("आप ही बताइए कितने में करवाना है", "tell me your price"), not a question about the load ("आप बताइए माल
# कितने टन है": a count of a measure).
YOU = frozenset(key(w) for w in ("आप", "aap", "ap", "तुम", "tum", "you", "your", "आपका", "आपकी", "आपके",
                                  "aapka", "aapki", "aapke", "तुम्हारा", "tumhara", "आपलोग"))  # fmt: skip
TELL_STEMS = tuple(key(w) for w in ("बता", "बोल", "tell", "say", "quote"))  # key prefixes: बताइए, bolo, tell
MONEY_WORDS = frozenset(key(w) for w in ("रेट", "rate", "price", "प्राइस", "budget", "बजट", "offer", "ऑफर", "रकम",
                                         "rakam", "पैसा", "paisa", "भाड़ा", "bhada", "किराया", "kiraya", "pay"))
HOW_MUCH = frozenset(key(w) for w in ("कितना", "कितने", "कितनी", "kitna", "kitne", "kitni", "how"))
YES = _phrases(
    "हां", "हाँ", "हा", "हान", "जी", "हांजी", "जी हां", "ठीक", "ठीक है", "ok", "okay", "ओके", "yes", "yeah", "haan",
    "han", "ji", "theek", "done", "डन", "चलेगा", "चलो", "चलिए", "पक्का", "बिल्कुल", "बिलकुल", "मंजूर", "मंज़ूर",
    "sure", "अच्छा", "सही", "हो जाएगा", "कर देंगे", "कर दूंगा", "बोलिए", "बोलो", "बताइए", "बताओ",
    "deal", "डील", "फाइनल", "final", "accha", "achha", "acha", "bilkul", "thik", "chalega", "pakka", "haanji", "hanji",
    "ho jayega", "kar denge", "kar dunga", "boliye", "bolo", "bataiye", "batao", "sahi", "manjoor", "yup",
)  # fmt: skip
# Yes words that are also politeness or "go on" ("ye to oonth ke munh mein jeera hai ji", "aap hi bataiye kya
# bachega"): a yes to an offer only alone with other yes words or fillers, or beside a firm one (`Intent.firm_yes`)
WEAK_YES = _phrases("जी", "ji", "बोलिए", "बोलो", "बताइए", "बताओ", "boliye", "bolo", "bataiye", "batao", "अच्छा",
                    "accha", "achha", "acha")  # fmt: skip
# Not assent: "theek hoon" (I am fine: "itne mein to main ghar baitha hi theek hoon"), laughter ("ha ha").
NOT_YES = _phrases("ठीक हूं", "ठीक हूँ", "theek hoon", "theek hun", "theek hu", "thik hoon", "thik hu", "हा हा",
                   "ha ha", "haha", "hahaha", "हाहा")  # fmt: skip
FILLER = _phrases(
    "है", "हैं", "सर", "sir", "भाई", "भैया", "मैडम", "madam", "ma'am", "बस", "hai", "जी", "हम्म", "hmm", "अरे", "bhai",
    "bhaiya", "bas", "are", "arre", "hain", "हम", "umm", "उम्म",
)  # fmt: skip
HELLO = _phrases("हेलो", "हैलो", "हलो", "hello", "helo", "hallo", "hlo")
# "ना" is also the emphatic particle ("कर दीजिए ना"): it means no only as the first word.
NO = _phrases(
    "नहीं", "नही", "no", "nahi", "nahin", "nhi", "नो", "मुश्किल", "not", "nope", "नहीं होगा", "नहीं चलेगा",
    "mushkil", "nahi hoga", "nahi chalega", "नईं", "नइं", "नहि", "नहिं", "नाहीं", "naahi", "nahee",
)  # fmt: skip
NOT_NO = _phrases(
    "कोई बात नहीं", "कोई दिक्कत नहीं", "कोई problem नहीं", "no problem", "दिक्कत नहीं", "problem नहीं",
    "टेंशन नहीं", "tension नहीं", "कोई टेंशन नहीं", "ना ना ठीक है", "koi baat nahi", "koi dikkat nahi",
    "dikkat nahi", "problem nahi", "tension nahi", "no tension",
)  # fmt: skip
ACK_EXTRA = _phrases(
    "धन्यवाद", "शुक्रिया", "thank", "thanks", "thank you", "नमस्ते", "नमस्कार", "बढ़िया", "great", "fine",
    "dhanyavad", "shukriya", "namaste", "namaskar", "badhiya", "thankyou",
)  # fmt: skip
_NA = key("ना")
_KYA = key("क्या")
_WHAT = key("what")
_QUESTION = "?"



def words(text: str, tokens: list[Token] | None = None) -> list[str]:
    """Spelling keys of the word tokens (numbers and punctuation dropped, '?' kept)."""
    return [t.text for t in (tokenize(text) if tokens is None else tokens) if t.kind not in ("num", "dash")]


def _has(tokens: list[str], phrases: Table, *, negation: bool = False) -> bool:
    return find(tokens, phrases, negation=negation)


def _without(tokens: list[str], phrases: Table) -> list[str]:
    out = list(tokens)
    for i, j in sorted(find_all(tokens, phrases), reverse=True):
        del out[i:j]
    return out


def _asks_our_rate(tokens: list[str]) -> bool:
    """A question back about what we pay: the table, or "you" + "tell" + a money question or word."""
    if _has(tokens, OUR_RATE):
        return True
    if not any(t in YOU for t in tokens) or not any(t.startswith(TELL_STEMS) for t in tokens):
        return False
    if all(t in YOU or t.startswith(TELL_STEMS) or t in HAND_BACK for t in tokens):
        return True  # "pehle aap bolo", "आप ही बताइए": the figure handed back
    for i, t in enumerate(tokens):
        if t in MONEY_WORDS:
            return True
        if t in HOW_MUCH and (i + 1 >= len(tokens) or tokens[i + 1] not in MEASURES):
            return True
    return False


def _only(tokens: list[str], *tables: Table) -> bool:
    """Whether every token is a one-word entry of one of `tables`."""
    return all(any((t,) in tab.get(t, ()) for tab in tables) for t in tokens)


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
    our_rate: bool  # a question back about what we pay ("आप बताओ कितना दोगे", "आपका बजट क्या है")
    yes: bool
    no: bool
    bare_ack: bool  # nothing but acknowledgement words ("हां जी", "ठीक है")
    hello_only: bool  # nothing but "हेलो"
    right_person: bool
    acknowledgement: bool  # yes, thanks, bye, namaste: enough to close after the wind-down
    unknown: bool = False  # none of the above: the rules have no reading of this turn
    refusal: bool = False  # an offer turned down, even after a yes word ("ठीक है तो रहने दीजिए"): refusal.py
    other_person: bool = False  # someone else answers for the vendor (person.py)
    handover: bool = False  # the phone is being passed ("ek minute dete hain")
    relay: bool = False  # "he'll call you", "मैं उनको बता दूंगा"
    time_given: bool = False  # a time to come ("शाम को", "kal subah", "दोपहर तक लौटेंगे")
    identifies: bool = False  # he names himself the one asked for ("main hi bol raha hoon")
    stranger: bool = False  # he names himself otherwise ("main suresh bol raha hoon"): someone else at the opening
    firm_yes: bool = False  # a yes that takes an offer: not only a polite "ji" or a "bataiye" (WEAK_YES)


def classify(text: str, tokens: list[Token] | None = None, vendor: str = "") -> Intent:
    """Read one vendor turn (`tokens`: `tokenize(text)` when the caller has it already; `vendor`: the name of the
    person asked for, so that someone naming himself otherwise is someone else)."""
    tokens = tokenize(text) if tokens is None else tokens
    toks = words(text, tokens)
    figure_words = {t.text for t in tokens if t.kind in FIGURE_KINDS}
    plain = [t for t in toks if t != _QUESTION]
    final = last_clause(plain)  # choices are read on what he finally said
    no_toks = _without(final, NOT_NO)
    # "busy नहीं हूं", "ग़लत नंबर नहीं है": the negator is spent on that phrase; it is no "no" answer
    for i, j in reversed(negated_spans(no_toks, BUSY, LATER, WRONG_NUMBER)):
        del no_toks[i:j]
    # "rate hoga bees nahi": that negator is spent on the figure (a correction to come), it is no "no" answer
    no_toks = [w for k, w in enumerate(no_toks) if not (k and w in NEGATORS and no_toks[k - 1] in figure_words)]
    no = _has(no_toks, NO) or no_toks[:1] == [_NA]
    refusal = is_refusal(final)
    assent = _without(final, NOT_YES)
    yes = (_has(assent, YES, negation=True) or _has(final, NOT_NO)) and not no and not refusal
    person = read_person(final, vendor_keys(vendor))
    hearing = _has(toks, HEARING) or (
        len(plain) <= 1 and _QUESTION in toks and plain[:1] in ([], [_KYA], [_WHAT])
    )
    rhetorical = _has(plain, RHETORICAL)  # "क्या करें, डीज़ल महंगा है" explains, it does not ask
    question = _QUESTION in toks or (
        not rhetorical
        and (any(t in QUESTION_WORDS for t in plain) or plain[:1] == [_KYA] or plain[-1:] == [_KYA])
    )
    bare_ack = bool(plain) and _only(plain, YES, ACK_EXTRA, HELLO, FILLER) and not no
    firm_yes = yes and (bare_ack or _has(_without(assent, WEAK_YES), YES, negation=True) or _has(final, NOT_NO))
    farewell = _has(final, FAREWELL, negation=True)
    callback = is_callback(final)
    our_rate = _asks_our_rate(final)
    wrong = _has(final, WRONG_NUMBER, negation=True)
    abuse = _has(plain, ABUSE)
    voicemail = _has(plain, VOICEMAIL)
    hello_only = bool(plain) and _only(plain, HELLO)
    right_person = (person.identifies or yes) and not person.other and not person.stranger
    ack = (yes or bare_ack or farewell or _has(plain, ACK_EXTRA)) and not question
    readings = (abuse, wrong, voicemail, callback, farewell, hearing, question, our_rate, yes, no, bare_ack,
                hello_only, right_person, ack, person.other, person.handover, person.relay, person.stranger)  # fmt: skip
    return Intent(
        abuse=abuse,
        wrong_number=wrong,
        voicemail=voicemail,
        callback=callback,
        farewell=farewell,
        hearing=hearing,
        question=question and not hearing,
        our_rate=our_rate,
        yes=yes,
        no=no,
        bare_ack=bare_ack,
        hello_only=hello_only,
        right_person=right_person,
        acknowledgement=ack,
        unknown=not any(readings),
        refusal=refusal,
        other_person=person.other,
        handover=person.handover,
        relay=person.relay,
        time_given=person.time,
        identifies=person.identifies,
        stranger=person.stranger,
        firm_yes=firm_yes,
    )
