"""Self-test cases for how the freight policy understands vendors (issue classes 6-9), added to
`dialogue-self-test` by selftest.py.

Owns `understanding_cases`: the ceiling never shows through wording (one ask-why line on both sides of the ceiling,
one wind-down for every deferral, no budget/limit word in any line or brief), callbacks in Hindi and Hinglish
from OPENING, after the pitch and while probing, figures as vendors say them (romanised, misspelt, ranges, digits
one by one, phone numbers, per-unit quotes, a bare "पच्चीस" in rate talk), and a question back while probing.
Pure: no I/O.
"""

from __future__ import annotations

import dataclasses

import policies.freight.lines as L
from ai_operator.dialogue import SelfTestCase
from policies.freight.load import Load
from policies.freight.prompts import MOVE_BRIEFS, SYSTEM_PROMPT
from policies.freight.quotes import hear_quote
from policies.freight.session import FreightSession

LOAD = Load(
    vendor_name="सुनील", origin="सूरत", destination="पुणे", vehicle="सत्रह फीट", weight="9", material="साड़ियां",
    pickup="कल दोपहर", anchor=20_000, ceiling=26_000,
)  # fmt: skip
CONFIRM = "haan ji sunil bol raha hoon"

# (text, trip rate, per_unit, phone) with the call waiting for a rate at the load's anchor
FIGURES: list[tuple[str, int | None, bool, bool]] = [
    ("pachees hazaar", 25_000, False, False),
    ("saade teis hazar", 23_500, False, False),
    ("unnis hajar paanch sau", 19_500, False, False),
    ("पच्चिस हजार", 25_000, False, False),
    ("इक्किस हज़ार", 21_000, False, False),
    ("उन्नीस-बीस हज़ार", 20_000, False, False),
    ("1 9 5 0 0", 19_500, False, False),
    ("एक नौ पांच शून्य शून्य", 19_500, False, False),
    ("मेरा फ़ोन नंबर 91234 56789 है", None, False, True),
    ("mera number 98xxxxxxx", None, False, True),
    ("पंद्रह सौ रुपये टन", None, True, False),
    ("kilo ke hisaab se do rupaye", None, True, False),
    ("पच्चीस दे दो", 25_000, False, False),
    ("दो दिन लगेंगे", None, False, False),
]
CALLBACKS_OPENING = ["abhi busy hoon kal phone karna", "मीटिंग में हूँ", "sham ko baat karte hain"]
CALLBACKS_PITCHED = ["सोच कर बताऊँगा", "baad mein call karo", "rate puch ke batata hoon"]
NOT_CALLBACKS = ["busy nahi hoon boliye", "हां जी बोलिए बिज़ी नहीं हूं"]
QUESTIONS_BACK = ["आप बताओ कितना दोगे", "aap kitna doge", "आपका बजट क्या है"]
LIMIT_WORDS_SEEN = ("बजट", "सीमा", "लिमिट", "अधिकतम", "मैक्सिमम", "budget", "limit", "maximum", "ceiling")


def _session(name: str, load: Load = LOAD) -> FreightSession:
    session = FreightSession(f"selftest-{name}", load)
    session.start()
    return session


def _ceiling() -> list[str]:
    problems = []
    for quote in ("pachees hazaar", "tees hazaar", "चालीस हज़ार", "2 4 5 0 0"):
        heard: set[str | None] = set()
        for ceiling in (20_500, 24_000, 26_000, 100_000):
            session = _session("ceiling", dataclasses.replace(LOAD, ceiling=ceiling))
            session.on_utterance(CONFIRM)
            heard.add(session.on_utterance(quote).text)
        if heard != {L.CANNED[L.ASK_WHY]}:
            problems.append(f"{quote!r}: the first reply depends on the ceiling: {sorted(map(str, heard))}")
    over, taken = _session("over"), _session("taken")
    for session, quote, hold in ((over, "tees hazaar", "isse kam nahi hoga"), (taken, "unnis hazaar", "nahi")):
        session.on_utterance(CONFIRM)
        session.on_utterance(quote)
        if session.on_utterance(hold).text != L.CANNED[L.DEFER]:
            problems.append(f"{quote!r} held: the wind-down is not the one deferral line")
    spoken = LOAD.spoken()
    texts = [L.canned(m, spoken, "{rate}") for m in L.CANNED] + [SYSTEM_PROMPT, *MOVE_BRIEFS.values()]
    for text in texts:
        found = L.limit_words(text) + [w for w in LIMIT_WORDS_SEEN if w in text.lower()]
        if found:
            problems.append(f"a line or brief names a limit ({found}): {text[:60]!r}")
    return problems


def _callbacks() -> list[str]:
    problems = []
    for text in CALLBACKS_OPENING:
        reply = _session("cb").on_utterance(text)
        if not (reply.hang_up and reply.disposition == "callback"):
            problems.append(f"opening {text!r}: {reply.fields['phase']} {reply.disposition}")
    for text in CALLBACKS_PITCHED:
        for before in ([CONFIRM], [CONFIRM, "pachees hazaar"]):
            session = _session("cb")
            for u in before:
                session.on_utterance(u)
            reply = session.on_utterance(text)
            if not (reply.hang_up and reply.disposition == "callback" and reply.text == L.CANNED[L.CALLBACK]):
                problems.append(f"after {before[-1]!r}, {text!r}: {reply.fields['phase']} {reply.disposition}")
    for text in NOT_CALLBACKS:
        reply = _session("cb").on_utterance(text)
        if reply.hang_up:
            problems.append(f"{text!r} closed the call ({reply.disposition})")
    return problems


def _figures() -> list[str]:
    problems = []
    for text, rate, per_unit, phone in FIGURES:
        q = hear_quote(text, anchor=LOAD.anchor)
        if (q.rate, q.per_unit, q.phone) != (rate, per_unit, phone):
            problems.append(f"{text!r}: heard {(q.rate, q.per_unit, q.phone)} != {(rate, per_unit, phone)}")
    session = _session("per-unit")
    session.on_utterance(CONFIRM)
    reply = session.on_utterance("पंद्रह सौ रुपये टन")
    if reply.text != L.CANNED[L.ASK_TRIP_RATE] or reply.fields["heard_rate"] is not None:
        problems.append("a per-ton quote was not answered by asking the trip rate")
    return problems


def _question_back() -> list[str]:
    problems = []
    for text in QUESTIONS_BACK:
        session = _session("question-back")
        session.on_utterance(CONFIRM)
        session.on_utterance("pachees hazaar")
        reply = session.on_utterance(text)
        if reply.fields["phase"] != "PROBING" or reply.text != L.CANNED[L.PROBE_NEUTRAL] or session.offered:
            problems.append(f"{text!r} while probing: {reply.fields['phase']}, offered {session.offered}")
        reply = session.on_utterance("diesel aur toll bahut hai")
        if reply.fields["offered_rate"] != session.concession:
            problems.append(f"{text!r}: the justification after it got no counter")
    return problems


_case = SelfTestCase.of_problems


def understanding_cases() -> list[SelfTestCase]:
    return [
        _case("freight:ceiling_never_in_wording", _ceiling),
        _case("freight:callback_hindi_hinglish", _callbacks),
        _case("freight:figures_as_vendors_say_them", _figures),
        _case("freight:question_back_while_probing", _question_back),
    ]
