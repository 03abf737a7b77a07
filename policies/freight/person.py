"""Who answered the phone: the vendor, or someone else for him (his driver, a relative, an employee), and what
that someone says about him.

Owns `read_person(tokens)` over spelling keys (Devanagari, Hinglish and English alike), a `Person` reading:
- `other`: someone else answers: a relation or role of the vendor's ("main unka driver", "उनकी वाइफ", "this is his
  son", "i am the manager", "driver speaking", "मैं मुंशी हूं", "ramesh ka partner", "ramesh's brother", "main
  chhota bhai bol raha hoon"), calling from his place ("ramesh ke ghar se", "रमेश जी के यहां से"), or the vendor
  is away or occupied, said of him in the third person ("वो घर पर नहीं हैं", "सेठ जी बाहर गए हुए हैं",
  "wo abhi busy hain", "he is not here", "ramesh bhaiya to dukaan pe hain");
- `handover`: the phone is being passed to him ("ek minute dete hain", "होल्ड कीजिए", "bulata hoon", "hold on i
  will give him the phone", "ek minute ji", "ruko", Punjabi "bapu ji nu bulaunda");
- `relay`: he will call, will be told, or will be back, said of him ("wo aapko call kar lenge", "मैं उनको बता
  दूंगा", "he will call you back", "papa ek ghante baad aayenge", "वो दोपहर तक लौटेंगे");
- `time`: a time to come ("शाम को", "kal subah", "ek ghante baad", "after lunch"), said by whoever answered;
- `identifies`: he names himself the one asked for ("main hi bol raha hoon", "speaking", "main ramesh bol raha
  hoon" with his name as an STT may spell it);
- `stranger`: he names himself with another name than the vendor's ("main suresh bol raha hoon", "this is vikram
  speaking", "ramesh roadlines se pinky bol rahi hoon"): someone else, read at the opening alone (later, "main
  aapko bol raha hoon" is no introduction).
The phase machine (phases.py) decides what each means where: no pitch until the right person is confirmed.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from policies.freight.clauses import find, find_all, negated, table
from policies.freight.deferral import LATER, PAST
from policies.freight.spelling import key


def _set(*words: str) -> frozenset[str]:
    return frozenset(key(w) for w in words)


RELATIONS = _set(
    "बेटा", "बेटी", "son", "daughter", "beta", "beti", "भाई", "bhai", "brother", "भतीजा", "bhatija", "nephew",
    "पत्नी", "वाइफ", "wife", "patni", "घरवाली", "gharwali", "मिसेज", "mrs", "husband", "पति", "pati", "बहन", "behen",
    "sister", "दामाद", "damad", "रिश्तेदार", "relative", "cousin", "जीजा", "jija", "चाचा", "chacha", "मामा", "mama",
    "uncle", "father", "पापा", "papa", "mother", "मम्मी", "mummy", "भांजा", "bhanja", "बहू", "bahu", "नाती", "पोता",
    "pota", "grandson", "family", "लड़का", "ladka", "लड़की", "ladki", "बच्चा", "bachcha", "बेटे", "bete",
    "पार्टनर", "partner", "दोस्त", "dost", "friend", "पड़ोसी", "padosi", "neighbour", "neighbor", "साथी", "saathi",
    "मुंडा", "munda", "कुड़ी", "kudi", "chhora", "छोरा", "chhori", "छोरी", "bhabhi", "भाभी", "मेहरारू", "mehraru",
    "मेहरारु", "लइका", "laika", "बबुआ", "babua",  # Bhojpuri: wife, son
    "अम्मा", "amma", "अम्मी", "ammi", "माई", "maai", "माताजी", "mataji", "mummyji", "दुलहिन", "dulhin", "बाबूजी",
    "babuji", "पिताजी", "pitaji", "दीदी", "didi", "भौजी", "bhauji", "mother-in-law", "सास", "saas",  # Awadhi and more
    "भरा", "bhra", "praa", "veer", "वीर", "बापू", "bapu", "bebe", "बेबे", "puttar", "पुत्तर",  # Punjabi
)  # fmt: skip
ROLES = _set(
    "ड्राइवर", "driver", "मुंशी", "munshi", "मुनीम", "munim", "मैनेजर", "manager", "स्टाफ", "staff", "हेल्पर",
    "helper", "खलासी", "khalasi", "क्लीनर", "cleaner", "नौकर", "naukar", "कर्मचारी", "employee", "accountant",
    "अकाउंटेंट", "clerk", "क्लर्क", "secretary", "सेक्रेटरी", "supervisor", "सुपरवाइजर", "peon", "चपरासी",
    "worker", "assistant", "office", "ऑफिस", "दफ्तर", "operator", "ऑपरेटर", "receptionist", "dispatcher",
    "डिस्पैचर", "incharge", "इंचार्ज", "fleet", "फ्लीट",
)  # fmt: skip
KIN_OR_STAFF = RELATIONS | ROLES
POSSESSIVES = _set(
    "उनका", "उनकी", "उनके", "उसका", "उसकी", "उसके", "इनका", "इनकी", "इनके", "unka", "unki", "unke", "uska", "uski",
    "uske", "inka", "inki", "inke", "his", "her", "their", "का", "की", "के", "ka", "ki", "ke", "sir's",
    "उनकर", "unkar", "okar", "ओकर", "unkaa", "unro", "उणरो", "unra", "unri",  # Bhojpuri, Marwari
    "ओहना", "ohna", "ohnan", "उन्हां", "unhan", "uhna", "ओहदा", "ohda", "ओहदे", "ohde", "ओहदी", "ohdi",  # Punjabi
)  # fmt: skip
FIRST_PERSON = _set("मैं", "main", "mai", "मै", "i", "i'm", "im", "हम", "hum", "ham", "me")
# After a role: he is saying what he is ("driver hoon", "driver bol raha", "driver speaking", "staff se").
ROLE_AFTER = _set("हूं", "हूँ", "hoon", "hun", "hu", "बोल", "bol", "speaking", "here", "से", "se", "है", "hai", "हैं",
                  "hain")  # fmt: skip
SAYING = _set("हूं", "हूँ", "hoon", "hun", "hu", "बोल", "bol", "speaking", "here")  # "main chhota bhai bol raha"
HONORIFICS = _set("जी", "ji", "साहब", "sahab", "sir", "paaji", "पाजी", "bhaiya", "भैया", "saab", "sa", "सा",
                  "bhai", "भाई", "babu", "बाबू")  # fmt: skip
OTHER_POSSESSIVES = _set("da", "di", "दा", "दी", "ra", "ri", "रा", "री",  # Punjabi, Marwari ("de", "re": give, hey)
                         "er", "cha", "chi", "che", "चा", "ची", "चे")  # Bengali, Marathi ("ramesh er wife")
# His phone in someone else's hands ("unka phone mere paas hai").
HIS_PHONE = table("फोन मेरे पास", "phone mere paas", "phone mere pas", "mobile mere paas", "उनका फोन", "unka phone",
                  "unka mobile", "his phone", "her phone", "उनका मोबाइल")  # fmt: skip
ROLE_BEFORE = _set("am", "the", "i'm", "im", "is", "मैं", "main", "हम", "hum")
# Calling from his place: "ramesh ke ghar se", "रमेश जी के यहां से", "unki dukaan se".
HIS_PLACE = table(
    "के घर से", "ke ghar se", "के यहां से", "के यहाँ से", "ke yahan se", "की दुकान से", "ki dukaan se", "ki dukan se",
    "के ऑफिस से", "ke office se", "के घर पे", "ke ghar pe", "के घर पर", "ke ghar par", "के यहां", "ke yahan",
)  # fmt: skip
HIS_OWN_PLACE = table("उनके घर से", "unke ghar se", "उनके यहां से", "unke yahan se", "उनकी दुकान से", "unki dukaan se",
                      "उनके ऑफिस से", "unke office se")  # fmt: skip
# Words before "bol raha hoon" that are no name ("main hi bol raha hoon", "haan bol raha hoon", "kaun bol raha").
NOT_A_NAME = _set(
    "ही", "hi", "जी", "ji", "तो", "to", "भी", "bhi", "खुद", "khud", "अभी", "abhi", "वही", "wahi", "यही", "yahi",
    "यहां", "yahan", "वहां", "wahan", "सीधा", "seedha", "sidha", "सेठ", "seth", "मालिक", "malik", "owner", "he",
    "him", "the", "one", "it", "me", "here", "now", "speaking", "is", "हूं", "hoon", "बोल", "bol", "ka", "ki", "ke",
    "से", "se", "घर", "ghar", "ऑफिस", "office", "गाड़ी", "gaadi", "रास्ते", "raste", "अपने", "apne", "हां", "haan",
    "हाँ", "ha", "yes", "hello", "हेलो", "hallo", "कौन", "kaun", "who", "आप", "aap", "aapse", "आपसे", "kya", "क्या",
    "sahi", "सही", "theek", "ठीक", "बस", "bas", "फोन", "phone", "पे", "pe", "par", "पर", "में", "mein", "इधर", "idhar",
    "उधर", "udhar", "kahan", "कहां", "ab", "अब", "फिर", "phir", "wala", "वाला", "wali", "वाली", "aapko", "आपको",
    "unse", "उनसे", "unko", "उनको", "usko", "उसको", "tumko", "tumse", "isko", "इसको", "sach", "सच", "jhooth", "झूठ",
    "sahi", "galat", "गलत", "baat", "बात", "seedhi", "सीधी", "saaf", "साफ", "ye", "yeh", "ये", "यह", "wo", "woh", "वो",
    "kuch", "कुछ", "sab", "सब", "itna", "इतना", "last", "final", "rate", "रेट", "dil", "दिल", "pehle", "पहले", "nahi",
    "नहीं", "na", "you", "frankly", "honestly", "truth",
)  # fmt: skip
# He names himself: "main X bol raha hoon", "X bol rahi hoon", "main X bolu hu" (Marwari), "X bol reya haan"
# (Punjabi), "X speaking"; the name is the word or two before the verb. Or "this is X from ...", "mera naam X".
HERE = key("here")
SPEAKS = _set("bolu", "बोलूं", "bolda", "boldi", "बोलदा", "boldaan", "boldan", "बोलदां", "speaking")
PROGRESSIVE = _set("raha", "rahi", "rahe", "rha", "rhi", "rhe", "reya", "riya", "rya", "rai", "ryo", "rahyo",
                  "रह्यो", "rahal", "रहल", "tani", "तानी", "reha", "रेहा", "rehya", "रेह्या")  # also Marwari "bol ryo su", Bhojpuri "bol rahal", "bol tani"; not
# "bol dunga" (a promise to tell him)
NAMING = {
    tuple(key(w) for w in lead.split()): _set(*ends)
    for lead, ends in (("this is", ("speaking", "here", "from", "calling")), ("it's", ("speaking", "here", "from")),
                       ("my name is", ("",)), ("mera naam", ("है", "hai", "")), ("मेरा नाम", ("है", "hai", "")))
}  # "" : the name may end the turn
MAX_NAME_WORDS = 2
# "main ramesh hoon", "हम रमेश बानी", "i am ramesh": read for his own name only ("main theek hoon" names nobody)
AM = _set("हूं", "हूँ", "hoon", "hun", "hu", "su", "बानी", "baani", "bani", "am", "aahe", "आहे")
I_AM = _set("am", "i'm", "im")
# After "main <his name>", a case marker or a possessive makes him someone else ("main ramesh ko bulata hoon",
# "main ramesh ka bhai hoon", "main ramesh ji ke yahan se")
NOT_HIMSELF_AFTER = _set("ko", "ka", "ki", "ke", "se", "ne", "को", "का", "की", "के", "से", "ने", "ji", "जी", "da", "di",
                         "de", "er", "cha", "chi", "che", "nu", "sahab", "saab", "साहब", "bhai", "भाई", "sir", "babu")
NAME_LIKENESS = 0.8  # one letter off in a six-letter name ("rakesh" for "ramesh"): his name misheard, not another's
THIRD_PERSON = _set(
    "वो", "वह", "वे", "woh", "wo", "vo", "voh", "he", "she", "he's", "she's", "sir", "सर", "सेठ", "seth", "sahab",
    "साहब", "साब", "saab", "malik", "मालिक", "पापा", "papa", "पिताजी", "pitaji", "boss", "owner", "ओनर", "मम्मी",
    "भैया", "bhaiya", "बॉस", "unka", "उनका", "उनको", "unko", "उन्हें", "unhe", "him", "her", "they", "unse", "उनसे",
)  # fmt: skip
# Away or occupied in the honorific third person ("वो घर पर नहीं हैं", "gaye hue hain", "सो रहे हैं"): of him
# unless a "हम" (we, or a plural I) says it.
AWAY_OF_HIM = table(
    "नहीं हैं", "nahi hain", "nahin hain", "बाहर गए", "bahar gaye", "बाहर हैं", "bahar hain", "गए हुए", "gaye hue",
    "gaye hain", "गए हैं", "निकले हैं", "nikle hain", "निकल गए", "nikal gaye", "सो रहे", "so rahe", "नहा रहे",
    "naha rahe", "खा रहे", "kha rahe", "busy हैं", "busy hain", "बिज़ी हैं", "बिजी हैं", "व्यस्त हैं", "मीटिंग में हैं",
    "meeting mein hain", "meeting me hain", "चला रहे हैं", "chala rahe hain", "hain nahi", "हैं नहीं", "lekar gaye",
    "लेकर गए", "le kar gaye", "बाहर गइल", "bahar gail", "gail badan", "गइल बाड़न", "gail bade", "gail hain",
    "गए ने", "gaye ne", "gye ne", "गये ने", "गए होए ने", "gaye hoye ne", "खेतां विच", "khetan vich",  # Punjabi
)  # fmt: skip
# Away or occupied with no person in the words ("not here", "in a meeting"): of him only with a he/wo/sir.
AWAY = table(
    "घर पर नहीं", "घर पे नहीं", "ghar pe nahi", "ghar par nahi", "not at home", "not here", "यहां नहीं", "यहाँ नहीं",
    "yahan nahi", "यहां पर नहीं", "not available", "isn't available", "available नहीं", "available nahi", "is out",
    "are out", "gone out", "went out", "बाहर गया", "bahar gaya", "गया हुआ", "gaya hua", "gaya hai", "गया है",
    "sleeping", "is busy", "in a meeting", "is driving", "is not there", "isn't there", "मौजूद नहीं", "maujood nahi",
    "site pe", "bahar hai", "बाहर है", "abhi nahi hai", "अभी नहीं है", "dukaan pe", "dukan pe", "दुकान पे",
    "दुकान पर", "dukaan par", "shop pe", "at the shop", "godown", "गोदाम", "kaam pe", "काम पर", "काम पे", "market gaye",
    "मार्केट गए", "bazaar gaye", "बाजार गए", "gaon gaye", "गांव गए", "out of station", "on leave", "chutti pe",
    "छुट्टी पर", "छुट्टी पे", "is travelling", "is traveling",
)  # fmt: skip
HANDOVER = table(
    "dete hain", "देते हैं", "deta hoon", "deta hu", "देता हूं", "देता हूँ", "de raha", "दे रहा", "de rahi", "दे रही",
    "phone deta", "फोन देता", "bulata", "बुलाता", "bula raha", "बुला रहा", "bulati", "बुलाती", "bula deta",
    "बुला देता", "bula dunga", "बुला दूंगा", "होल्ड", "hold", "line pe rahiye", "लाइन पे रहिए", "लाइन पर रहिए",
    "line par rahiye", "give him the phone", "give her the phone", "let me call him", "let me get him",
    "i'll get him", "i will get him", "i'll call him", "connect", "transfer", "ट्रांसफर", "पकड़ाता", "pakdata",
    "baat karwata", "बात करवाता", "baat karata", "बात कराता", "baat karwa deta", "बात करवा देता", "unko deta",
    "उनको देता", "उन्हें देता", "unhe deta", "bulaunda", "bulanda", "bulaanda", "बुलाउंदा", "बुलांदा",  # Punjabi
)  # fmt: skip
# Hold on ("ek minute ji", "ruko ji", "one moment"): the phone is being passed, unless it puts the call off ("ek
# minute mein call karta hoon").
HOLD = table("ek minute", "ik minute", "ek min", "एक मिनट", "इक मिनट", "one minute", "one moment", "just a minute",
             "just a moment", "ruko", "रुको", "rukiye", "रुकिए", "rukna", "रुकना")  # fmt: skip
HOLD_NOT = _set("में", "mein", "me", "main", "बाद", "baad", "bad", "later")
RELAY = table(
    "call kar lenge", "call karenge", "phone karenge", "phone kar lenge", "कॉल कर लेंगे", "कॉल करेंगे", "फोन करेंगे",
    "फोन कर लेंगे", "will call you", "he'll call", "she'll call", "he will call", "she will call", "call you back",
    "बता दूंगा", "bata dunga", "bata dungi", "बता दूंगी", "bol dunga", "बोल दूंगा", "बोल दूंगी", "keh dunga",
    "कह दूंगा", "i'll tell him", "i will tell him", "will tell him", "let him know", "pass the message",
    "message de dunga", "मैसेज दे दूंगा", "inform kar dunga", "khud call", "खुद कॉल", "खुद फोन", "khud phone",
    "call back karenge", "आपको कॉल", "aapko call", "aapko phone", "आपको फोन", "apko call", "बता देता", "bata deta",
    "बता देते", "bata dete", "बोल देता", "bol deta", "कह देता", "keh deta", "बता देब", "bata deb", "bata debo",
)
GREETINGS = table("good morning", "good evening", "good afternoon", "गुड मॉर्निंग", "गुड इवनिंग", "suprabhat",
                  "सुप्रभात")  # fmt: skip
# Telling him, not passing the phone ("main unko bata deta hoon" is no "deta hoon" handover).
TELLING = _set("बता", "bata", "बोल", "bol", "कह", "keh", "kah", "samjha", "समझा")  # fmt: skip
# When he is back ("दोपहर तक लौटेंगे", "kal subah milenge", "will be back"): beside deferral.LATER's times.
RETURN = table(
    "आएंगे", "आयेंगे", "aayenge", "ayenge", "aaenge", "आ जाएंगे", "aa jayenge", "लौटेंगे", "lautenge", "will be back",
    "be back", "वापस आ", "vapas aa", "wapas aa", "milenge", "मिलेंगे", "free honge", "फ्री होंगे", "after", "lunch",
    "लंच", "baje", "बजे", "o'clock", "will come", "will be here", "आएगा", "aayega", "aavega", "आवेगा", "aasi",
    "आसी", "aihen", "अइहें", "ailen",
)
# Gone somewhere, said of him with a time he comes back ("seth ji to jaipur gya parso aasi"): away.
WENT = _set("gya", "gyo", "gayo", "gaya", "gaye", "gail", "गया", "गए", "गयो", "गइल", "went", "gone")  # fmt: skip
IDENTIFIES = table(
    "मैं ही", "मैं बोल रहा", "बोल रहा हूं", "बोल रहा हूँ", "speaking", "मैं हूं", "मैं हूँ", "main hi", "bol raha hoon",
    "main bol raha", "haan main", "it's me", "ji hi hoon", "जी ही हूं", "this is he", "yes this is",
)  # fmt: skip


@dataclass(frozen=True)
class Person:
    """What one turn says about who is on the line (see the module docstring)."""

    other: bool = False
    handover: bool = False
    relay: bool = False
    time: bool = False
    identifies: bool = False
    stranger: bool = False  # he names himself, not as the vendor ("main suresh bol raha hoon"): read at the opening


def _possessive(token: str) -> bool:
    return token in POSSESSIVES or token.endswith("'s")  # "ramesh's brother"


def _same_name(word: str, vendor: frozenset[str]) -> bool:
    """`word` is the vendor's name as an STT may write it ("mahes" for महेश): `NAME_LIKENESS` alike or more."""
    return any(word == v or SequenceMatcher(None, word, v).ratio() >= NAME_LIKENESS for v in vendor)


def _name_said(words: Sequence[str], vendor: frozenset[str]) -> bool | None:
    """The words in a name's place: True for the vendor's name, False for another name, None for no name."""
    if any(_same_name(t, vendor) for t in words):
        return True
    if any(t not in NOT_A_NAME and t not in HONORIFICS and t not in ROLES and t not in RELATIONS
           and t not in FIRST_PERSON and t not in POSSESSIVES for t in words):
        return False
    return None


def _past_honorifics(tokens: Sequence[str], i: int) -> int:
    """The index of the last word at or before `i` that is no honorific ("ramesh ji" -> "ramesh"), the first word
    at the latest ("sir ke ghar se": "sir" is him)."""
    while i > 0 and tokens[i] in HONORIFICS:
        i -= 1
    return i


def _before(tokens: Sequence[str], k: int) -> list[str]:
    """Up to `MAX_NAME_WORDS` words before index `k`, past honorifics, back to the first that is no name."""
    out: list[str] = []
    i = k - 1
    while i >= 0 and tokens[i] in HONORIFICS:
        i -= 1
    while i >= 0 and len(out) < MAX_NAME_WORDS and tokens[i] not in NOT_A_NAME and tokens[i] not in FIRST_PERSON:
        out.insert(0, tokens[i])
        i -= 1
    return out


def _self_named(tokens: Sequence[str], vendor: frozenset[str]) -> bool | None:
    """Whether he names himself as the vendor (`vendor`: the keys of the vendor's name): True for "main ramesh bol
    raha hoon", "ramesh ji bol rahe hain", "this is ramesh speaking"; False for another name ("main suresh bol raha
    hoon", "ramesh roadlines se pinky bol rahi hoon", "this is anil from sharma transport", "mera naam raju hai");
    None when he names nobody."""
    if not vendor:
        return None
    n = len(tokens)
    first_named = False
    for k, tok in enumerate(tokens):
        if tok in AM and k > 1:
            name = _before(tokens, k)
            if name and k - len(name) > 0 and tokens[k - len(name) - 1] in FIRST_PERSON and _name_said(name, vendor):
                return True  # "main ramesh hoon"
        if tok in I_AM and any(_same_name(t, vendor) for t in tokens[k + 1 : k + 1 + MAX_NAME_WORDS]):
            return True  # "i am ramesh", "i'm ramesh"
        if tok == HERE and k > 0 and _same_name(tokens[k - 1], vendor):
            return True  # "ramesh here"
        if (tok in FIRST_PERSON and tokens[k + 1 : k + 2] and _same_name(tokens[k + 1], vendor)
                and not (tokens[k + 2 : k + 3] and tokens[k + 2] in NOT_HIMSELF_AFTER)):
            first_named = True  # "haan bhai main ramesh aa gaya bolo" (not "main ramesh ko bulata hoon")
        if tok in SPEAKS or (tok == key("bol") and tokens[k + 1 : k + 2] and tokens[k + 1] in PROGRESSIVE):
            said = _name_said(_before(tokens, k), vendor)
            if said is not None:
                return said
    for lead, ends in NAMING.items():
        for i in range(n - len(lead) + 1):
            if tuple(tokens[i : i + len(lead)]) != lead:
                continue
            k = start = i + len(lead)
            while k < n and k - start <= MAX_NAME_WORDS and tokens[k] not in ends:
                k += 1
            if start < k <= start + MAX_NAME_WORDS and (tokens[k] in ends if k < n else "" in ends):
                said = _name_said(tokens[start:k], vendor)
                if said is not None:
                    return said
    return True if first_named else None


def _his(tokens: Sequence[str], i: int, vendor: frozenset[str]) -> bool:
    """tokens[i] is a Punjabi or Marwari possessive right after his name, or after an honorific after it ("ramesh
    paaji da", "ramesh ji ri"): "da" or "ri" elsewhere are other words."""
    if i < 1 or tokens[i] not in OTHER_POSSESSIVES:
        return False
    j = _past_honorifics(tokens, i - 1)
    return j >= 0 and (_same_name(tokens[j], vendor) or (j < i - 1 and tokens[j] in THIRD_PERSON))


def _related(tokens: Sequence[str], vendor: frozenset[str] = frozenset()) -> bool:
    """A relation or role of the vendor's: "unka driver", "his son", "main munshi hoon", "driver speaking",
    "ramesh ka partner", "main chhota bhai bol raha hoon" (not "main ramesh bhai": an honorific after his name);
    calling from his place ("ramesh ke ghar se")."""
    if find(tokens, HIS_PHONE) or find(tokens, HIS_OWN_PLACE):
        return True
    for i, _ in find_all(tokens, HIS_PLACE):  # "ramesh ji ke ghar se", not "aap ke yahan se"
        j = _past_honorifics(tokens, i - 1)
        if j >= 0 and (_same_name(tokens[j], vendor) or tokens[j] in THIRD_PERSON - POSSESSIVES):
            return True
    for i, tok in enumerate(tokens):
        before = tokens[max(0, i - 2) : i]
        if tok in KIN_OR_STAFF and (any(_possessive(t) for t in before) or _his(tokens, i - 1, vendor)):
            return True
        if (tok in RELATIONS and any(t in FIRST_PERSON for t in tokens[max(0, i - 3) : i])
                and tokens[i + 1 : i + 2] and tokens[i + 1] in SAYING and not (before and before[-1] in vendor)):
            return True  # "main chhota bhai bol raha hoon"
        if tok in ROLES:
            k = i + 1
            while k < len(tokens) and tokens[k] in HONORIFICS:  # "munshi ji bol raha hoon"
                k += 1
            after = tokens[k] if k < len(tokens) else ""
            if any(_possessive(t) for t in before) or (before and before[-1] in ROLE_BEFORE) or after in ROLE_AFTER:
                return True
    return False


def _away(tokens: Sequence[str]) -> bool:
    """He is away or occupied, said of him (an honorific third-person form, or a he/wo/sir)."""
    if any(t in THIRD_PERSON or t in RELATIONS for t in tokens):  # "uncle ghar pe nahi hai"
        return (find(tokens, AWAY) or find(tokens, AWAY_OF_HIM)
                or (any(t in WENT for t in tokens) and find(tokens, RETURN)))
    return find(tokens, AWAY_OF_HIM) and not any(t in FIRST_PERSON for t in tokens)


def _holding(tokens: Sequence[str]) -> bool:
    """"ek minute ji", "ruko": hold on while the phone is passed (not "ek minute mein call karta hoon")."""
    return any(j >= len(tokens) or tokens[j] not in HOLD_NOT for _, j in find_all(tokens, HOLD))


def _time(tokens: Sequence[str]) -> bool:
    if any(t in PAST for t in tokens):
        return False
    for i, j in sorted(find_all(tokens, GREETINGS), reverse=True):  # "good morning": a greeting, not a time
        tokens = [*tokens[:i], *tokens[j:]]
    return any(not negated(tokens, i, j) for i, j in find_all(tokens, LATER)) or find(tokens, RETURN, negation=True)


def vendor_keys(name: str) -> frozenset[str]:
    """The spelling keys the vendor's name is said with ("रमेश" -> ramesh, rameshji)."""
    words = [key(w) for w in name.split() if key(w)]
    return frozenset(words + [w + "ji" for w in words])


def read_person(tokens: Sequence[str], vendor: frozenset[str] = frozenset()) -> Person:
    """Who is on the line, from one clause of spelling keys (`vendor`: `vendor_keys` of the name asked for)."""
    named = _self_named(tokens, vendor)
    other = _related(tokens, vendor) or _away(tokens)
    time = _time(tokens)
    of_him = any(t in THIRD_PERSON for t in tokens)
    return Person(
        other=other,
        handover=(find(tokens, HANDOVER, negation=True) and not any(
            tokens[i - 1] in TELLING for i, _ in find_all(tokens, HANDOVER) if i > 0)) or _holding(tokens),
        relay=of_him and (time or find(tokens, RELAY, negation=True)),
        time=time,
        identifies=not other and named is not False and (named is True or find(tokens, IDENTIFIES, negation=True)),
        stranger=named is False,
    )
