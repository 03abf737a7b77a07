"""Ori's canned Hindi lines, one per move, the move names the rest of the policy uses, and the words no line
may use.

Owns the wording spoken when no model is configured (and as the model's fallback). Lines take the load's spoken
fields and, for a move that voices a figure, `{rate}`, filled with `say_rate(figure)` by `render`. No line
carries a digit. The ceiling never shows through wording: the ask-why line is one line for every quote above the
anchor, an over-ceiling quote held to the end hears the same wind-down (`DEFER`) as a quote we take, and no line
or model answer names a budget, limit or maximum (`limit_words`, hi/en/Hinglish). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

from policies.freight.clauses import find_all, table

RATE_TOKEN = "{rate}"

# Moves (also the ModelTurn `purpose`).
GREETING = "greeting"
REASK_PERSON = "reask_person"
ASK_PERSON = "ask_person"  # someone else answered: the vendor, or when to call him
HOLD_ON = "hold_on"  # the phone is being passed to him: she waits
CALLBACK_MESSAGE = "callback_message"  # someone else gave a time or will tell him: a message, then goodbye
PITCH = "pitch"
ASK_RATE = "ask_rate"
OFFER_ANCHOR = "offer_anchor"
ASK_WHY = "ask_why"  # every first quote above the anchor, whatever the ceiling
PROBE_AGAIN = "probe_again"
PROBE_NEUTRAL = "probe_neutral"  # he asked back what we pay instead of explaining
ASK_TRIP_RATE = "ask_trip_rate"  # he quoted per ton/km/kilo
ASK_WHOLE_RATE = "ask_whole_rate"  # he said an amount too small to be the trip rate ("पाँच सौ")
NUMBER_NOTED = "number_noted"  # he gave a phone number instead of a rate
SQUEEZE = "squeeze"
COUNTER = "counter"
LAST_ASK = "last_ask"
ANSWER = "answer"
DEAL_COUNTER = "deal_counter"
DEFER = "defer"  # his quote goes to the team: taken (deal_at_quote) or over the ceiling, the same words
DEFERRED_HOLD = "deferred_hold"
GOODBYE = "goodbye"
ABUSE_WARNING = "abuse_warning"
ABUSE_CLOSE = "abuse_close"
WRONG_NUMBER = "wrong_number"
VOICEMAIL = "voicemail"
CALLBACK = "callback"
DECLINED = "declined"
FAREWELL = "farewell"
REPROMPT = "reprompt"
GIVE_UP = "give_up"
MISUNDERSTOOD = "misunderstood"
NOT_HEARD = "not_heard"
DTMF = "dtmf"
SHUTDOWN = "माफ़ कीजिए, अभी लाइन बंद करनी पड़ रही है। हम बाद में फिर से कॉल करेंगे। धन्यवाद।"
MAX_CALL_LENGTH = "माफ़ कीजिए, अभी बात यहीं रोकनी पड़ेगी। हमारी टीम आपको फिर से कॉल करेगी। धन्यवाद, नमस्ते।"

CANNED: dict[str, str] = {
    GREETING: "नमस्ते, मैं ओरी बोल रही हूं, एक लोड के सिलसिले में कॉल किया है। क्या मेरी बात {vendor_name} जी से हो रही है?",
    REASK_PERSON: "जी, मैं ओरी बोल रही हूं। क्या मेरी बात {vendor_name} जी से हो रही है?",
    ASK_PERSON: (
        "अच्छा जी। मैं ओरी, एक लोड के सिलसिले में कॉल किया था। क्या {vendor_name} जी से बात हो सकती है? "
        "नहीं तो बता दीजिए, उन्हें कब कॉल करूं?"
    ),
    HOLD_ON: "जी, ज़रूर, मैं लाइन पर हूं।",
    CALLBACK_MESSAGE: (
        "ठीक है जी, {vendor_name} जी को बता दीजिएगा कि ओरी ने एक लोड के सिलसिले में कॉल किया था। "
        "मैं बाद में फिर कॉल करूंगी। धन्यवाद, नमस्ते।"
    ),
    PITCH: (
        "जी, {origin} से {destination} के लिए एक लोड है: {material}, {weight}, गाड़ी {vehicle} चाहिए, पिकअप {pickup}। "
        "क्या आपके पास गाड़ी है, और आपका रेट कितना रहेगा?"
    ),
    ASK_RATE: "बढ़िया जी। तो इस लोड के लिए आपका रेट कितना रहेगा?",
    OFFER_ANCHOR: "हमारी तरफ़ से इस लोड का {rate} बन रहा है जी। आप कितने में कर देंगे?",
    ASK_WHY: "अच्छा जी। ये रेट थोड़ा ज़्यादा लग रहा है, किस हिसाब से बता रहे हैं?",
    PROBE_AGAIN: "जी, बताइए ना, इतना रेट किस वजह से है? डीज़ल, टोल, या वापसी खाली आना?",
    PROBE_NEUTRAL: "जी, हम ज़रूर देखेंगे, पर पहले ये समझा दीजिए कि ये रेट किस हिसाब से बना है? डीज़ल, टोल, या वापसी खाली?",
    ASK_TRIP_RATE: "जी, टन या किलोमीटर के हिसाब से नहीं, पूरी गाड़ी का, पूरे ट्रिप का कुल रेट कितना रहेगा?",
    ASK_WHOLE_RATE: "माफ़ कीजिए जी, पूरा रेट साफ़ नहीं सुना। पूरी गाड़ी का कुल रेट कितना रहेगा, एक बार फिर बता दीजिए?",
    NUMBER_NOTED: "जी, नंबर नोट कर लिया। इस लोड के लिए पूरी गाड़ी का आपका रेट कितना रहेगा?",
    # The seed writes "ask for a little more" for SQUEEZED; Ori is the buyer, so she asks him for a little less.
    SQUEEZE: "ठीक है जी। थोड़ा सा और कम हो सकता है क्या?",
    COUNTER: "समझ गई जी। हमारी तरफ़ से {rate} हो सकता है, इस पर कर दीजिए?",
    LAST_ASK: "आख़िरी बार पूछ रही हूं जी, थोड़ा और देख लीजिए, थोड़ा कम हो जाए तो बात बन जाएगी?",
    ANSWER: "जी, लोड {origin} से {destination} का है: {material}, {weight}, गाड़ी {vehicle}, पिकअप {pickup}।",
    DEAL_COUNTER: "ठीक है जी, {rate} पर बात पक्की। मैं टीम से कन्फ़र्म करवाकर आपको गाड़ी की डिटेल के लिए कॉल करवाती हूं।",
    DEFER: "ठीक है जी, आपका रेट नोट कर लिया है। मैं टीम से कन्फ़र्म करवाकर आपको कॉल करवाती हूं।",
    DEFERRED_HOLD: "जी, बाक़ी बात हमारी टीम आपको कॉल करके कन्फ़र्म कर देगी।",
    GOODBYE: "धन्यवाद जी, आपका दिन शुभ हो। नमस्ते।",
    ABUSE_WARNING: "कृपया ठीक से बात कीजिए, नहीं तो मुझे कॉल काटनी पड़ेगी।",
    ABUSE_CLOSE: "माफ़ कीजिए, इस तरह बात नहीं हो पाएगी। नमस्ते।",
    WRONG_NUMBER: "माफ़ कीजिए, शायद ग़लत नंबर लग गया। धन्यवाद, नमस्ते।",
    VOICEMAIL: "नमस्ते, मैं ओरी, एक लोड के सिलसिले में कॉल किया था। हम फिर से कॉल करेंगे। धन्यवाद।",
    CALLBACK: "ठीक है जी, मैं बाद में कॉल करती हूं। धन्यवाद, नमस्ते।",
    DECLINED: "कोई बात नहीं जी, धन्यवाद। अगले लोड पर फिर बात करेंगे। नमस्ते।",
    FAREWELL: "ठीक है जी, धन्यवाद। नमस्ते।",
    REPROMPT: "हेलो? आप सुन रहे हैं?",
    GIVE_UP: "लगता है आवाज़ नहीं आ रही, मैं बाद में कॉल करती हूं। नमस्ते।",
    MISUNDERSTOOD: "माफ़ कीजिए, लगता है अभी बात ठीक से नहीं हो पा रही। हमारी टीम आपको फिर से कॉल करेगी। धन्यवाद, नमस्ते।",
    NOT_HEARD: "माफ़ कीजिए, आवाज़ साफ़ नहीं आई, फिर से बोलिए?",
    DTMF: "जी, कृपया बोलकर बताइए।",
}

# Follow-up that an ANSWER line ends with, by phase name: she returns to what the phase is waiting for.
ANSWER_FOLLOW_UP: dict[str, str] = {
    "OPENING": "क्या मेरी बात {vendor_name} जी से हो रही है?",
    "PITCHED": "आपका रेट कितना रहेगा?",
    "PROBING": "तो बताइए, ये रेट किस हिसाब से है?",
    "SQUEEZED": "थोड़ा सा और कम हो सकता है क्या?",
    "LAST_ASK": "थोड़ा कम हो जाए तो बात बन जाएगी?",
    "DEFERRED": "बाक़ी बात टीम कॉल करके कन्फ़र्म कर देगी।",
}

# Moves that voice a figure: their lines (and model output) must carry {rate}.
FIGURE_MOVES = frozenset({OFFER_ANCHOR, COUNTER, DEAL_COUNTER})
# Moves about money: the model gets no load brief for them.
MONEY_MOVES = frozenset(
    {OFFER_ANCHOR, ASK_WHY, PROBE_AGAIN, PROBE_NEUTRAL, SQUEEZE, COUNTER, LAST_ASK, DEAL_COUNTER, DEFER}
)
# Moves the model may word when one is configured; the rest are always canned.
MODEL_MOVES = frozenset(
    {OFFER_ANCHOR, ASK_WHY, PROBE_AGAIN, PROBE_NEUTRAL, SQUEEZE, COUNTER, LAST_ASK, ANSWER, DEAL_COUNTER, DEFER,
     GOODBYE}
)  # fmt: skip

# Words that name a budget, limit or maximum (hi, en, Hinglish): no line and no model answer may use them.
LIMIT_WORDS = table(
    "बजट", "budget", "सीमा", "seema", "लिमिट", "limit", "अधिकतम", "adhiktam", "मैक्सिमम", "maximum", "max", "मैक्स",
    "ceiling", "सीलिंग", "threshold", "cap", "ज़्यादा से ज़्यादा", "zyada se zyada", "jyada se jyada",
    "ज़्यादा से ज़्यादा", "at most", "at the most", "up to", "upto", "हद से", "से ऊपर नहीं", "se upar nahi",
    "इससे ऊपर", "isse upar", "उससे ऊपर", "हमारी रेंज", "range", "रेंज", "बजट से", "सबसे ज़्यादा", "sabse zyada",
)  # fmt: skip


def limit_words(text: str) -> list[str]:
    """The budget/limit/maximum words in `text` (empty when there are none)."""
    from policies.freight.numerals import tokenize  # numerals imports nothing of lines: no cycle

    tokens = [t.text for t in tokenize(text) if t.kind not in ("num", "dash", "question")]
    return [" ".join(tokens[i:j]) for i, j in find_all(tokens, LIMIT_WORDS)]


def render(template: str, spoken: Mapping[str, str], rate_words: str | None = None) -> str:
    """Fill a line: load fields by name, `{rate}` with the figure's spoken form (when the move has one)."""
    text = template
    for key, value in spoken.items():
        text = text.replace("{" + key + "}", value)
    if rate_words is not None:
        text = text.replace(RATE_TOKEN, rate_words)
    return text


def canned(
    move: str, spoken: Mapping[str, str], rate_words: str | None = None, phase: str | None = None
) -> str:
    """The canned line for `move` (an ANSWER also returns to what `phase` is waiting for)."""
    text = CANNED[move]
    if move == ANSWER and phase in ANSWER_FOLLOW_UP:
        text = f"{text} {ANSWER_FOLLOW_UP[phase]}"
    return render(text, spoken, rate_words)
