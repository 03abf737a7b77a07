"""Whether a vendor turns an offer down even where his words start like a yes ("ठीक है तो फिर रहने दीजिए",
"ok then it's over", "mera rate final hai", "theek hai aap kisi aur se karwa lo").

Owns `is_refusal(tokens)` over spelling keys (Devanagari, Hinglish and English alike), built from these forms:
- leave it: "रहने दो", "chhodo", "jaane do", "leave it", "forget it";
- it's over: "बात खत्म", "khatam", "then it's over", "no deal", "फिर कभी";
- my figure stands: "final" or "last" with mine/that/what I said ("mera rate final hai", "जो बोला वही फाइनल",
  "wahi lagega", "उतना ही लगेगा"), while a bare "final"/"done" stays a yes;
- someone else: "दूसरी गाड़ी देख लो", "kisi aur se karwa lo", "find another truck", "कोई और देख लो";
- keep it: "aap rakho apna load", "isse achha to gaadi khadi rakhunga" (I would rather keep the truck parked);
- a question that refuses: "itne mein kaun chalayega", "aap mazak kar rahe ho kya";
- proverbs of a figure too low ("oonth ke munh mein jeera", "ghoda ghaas se dosti karega to khayega kya"), let
  whoever goes take it ("usi se mangwa lo"), nothing left for me ("kya bachega"), from my own pocket ("jeb se");
- mockery of the figure (`_mocked`): at this rate not even X ("itne mein to cycle bhi na aave", "इतने में तो डीज़ल
  भी नहीं भरेगा"), who would ("itne mein kaun gaadi bhejega"), would you yourself ("kya aap apni gaadi itne mein
  bhejoge"), I would sooner sell my truck ("itne mein to main apni gaadi bech dunga");
- a loss, not possible: "घाटा है", "loss hai", "impossible", "संभव नहीं", "padta nahi", "can't do";
- an ultimatum: "वरना", "नहीं तो", "warna", "otherwise", "take it or leave it";
- yes to the argument, but the rate's trouble (`_but_the_rate`): "ji sab theek hai lekin rate mein dikkat hai",
  "aap theek keh rahi ho par hamara kharcha hi itna hai" ("theek hai lekin payment jaldi karna" stays a yes).
The forms without a negator of their own are negation-aware ("घाटा नहीं है", "final नहीं है" are no refusal). The phase machine reads it where an
offer stands (after the counter: LAST_ASK, never a deal). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from policies.freight.clauses import (
    ENGLISH_NEGATORS,
    HINDI_NEGATORS,
    WEAK_NEGATORS,
    find,
    find_all,
    negated,
    table,
)
from policies.freight.spelling import key

REFUSALS = table(
    # leave it
    "रहने दो", "रहने दीजिए", "रहने दें", "रहने दीजिये", "रहने देते", "rehne do", "rahne do", "rehne dijiye",
    "rahne dijiye", "rehne de", "rehne dete", "छोड़ो", "छोड़ दो", "छोड़िए", "छोड़ दीजिए", "chhodo", "chodo",
    "chhod do", "chod do", "chhodiye", "chodiye", "जाने दो", "jaane do", "jane do", "leave it", "forget it",
    "skip it", "mat do", "मत दो", "मत दीजिए",
    # it's over
    "खत्म", "ख़त्म", "khatam", "khatm", "it's over", "it is over", "its over", "no deal", "फिर कभी", "phir kabhi",
    "next time", "अगली बार", "agli baar", "not interested",
    # someone else
    "दूसरी गाड़ी", "dusri gaadi", "dusri gadi", "doosri gaadi", "कोई और गाड़ी", "koi aur gaadi", "koi aur gadi",
    "किसी और से", "kisi aur se", "kisi aur ko", "किसी और को", "कहीं और", "kahin aur", "someone else",
    "another truck", "other truck", "another vendor", "somebody else", "दूसरा वेंडर", "dusra vendor",
    "कोई और देख", "koi aur dekh", "और कोई देख", "aur koi dekh", "कोई और ढूंढ", "koi aur dhundh", "koi aur dhoondh",
    "दूसरा देख", "dusra dekh", "doosra dekh", "find someone", "look for someone", "look elsewhere", "find another",
    # keep your load, I would rather keep my truck parked
    "रखो अपना", "rakho apna", "रखिए अपना", "rakhiye apna", "अपना लोड रखो", "apna load rakho", "keep your load",
    "i'd rather", "i would rather", "rather keep", "खड़ी रखूं", "khadi rakhu", "खड़ी कर दूंगा", "khadi kar dunga",
    "खड़ी रखें", "khadi rakhen", "khadi rakhe", "खड़ी रखेंगे", "khadi rakhenge", "खड़ी रख", "khadi rakh",
    "घर पे खड़ी", "ghar pe khadi", "घर पर खड़ी", "ghar par khadi", "खाली भेजूंगा", "khali bhejunga",
    "खड़ी रखूंगा", "khadi rakhunga", "खड़ी रहेगी", "khadi rahegi", "खाली खड़ी", "khali khadi",
    # who would run it at this rate, are you joking (a question that refuses)
    "कौन चलाएगा", "kaun chalayega", "kon chalayega", "कौन करेगा", "kaun karega", "मज़ाक कर रहे", "मजाक कर रहे",
    "mazak kar rahe", "mazaak kar rahe", "you must be joking", "are you joking", "are you kidding",
    # proverbs of a rate too low: a cumin seed in a camel's mouth, the horse that befriends the grass, cheap cries
    "मुंह में जीरा", "munh mein jeera", "muh mein jeera", "munh me jeera", "muh me jira", "घोड़ा घास", "ghoda ghaas",
    "ghoda ghas", "सस्ता रोए", "sasta roye", "sasta rove",
    # whoever goes at it, let him ("usi se mangwa lo"); what would be left for me; from my own pocket
    "उसी से मंगवा", "usi se mangwa", "उसी से करवा", "usi se karwa", "उसी को दे", "usi ko de", "क्या बचेगा",
    "kya bachega", "कुछ नहीं बचेगा", "kuch nahi bachega", "kya bachta", "क्या बचता", "जेब से", "jeb se",
    "from my pocket", "own pocket", "ऐसे कैसे चलेगा", "aise kaise chalega", "kaise chalega dhanda", "dhanda kaise chalega",
    "धंधा कैसे चलेगा",
    "आपको मुबारक", "aapko mubarak", "mubarak ho", "very funny", "so funny", "good joke",
    # alms, not a rate; a rate of the old days while everything went up
    "भीख", "bhikh", "bheekh", "bhik de", "खैरात", "khairat", "khairaat", "charity", "दान दे", "daan de",
    "पुराना रेट", "पुराने रेट", "purana rate", "purane rate", "old rate", "रेट बढ़ गया", "rate badh gaya",
    "rate badh gaye", "बढ़ा हुआ है", "badha hua hai", "badhe hue hain", "बढ़े हुए हैं",
    # I would sooner sell my truck, close my business
    "बेच दूंगा", "bech dunga", "bech du", "bech dun", "बेच दूं", "bech denge", "बेच देंगे", "sell my truck",
    "sell the truck", "धंधा बंद", "dhandha band", "dhanda band",
    # a loss
    "impossible", "नामुमकिन", "namumkin", "घाटा", "ghata", "ghaata", "loss", "नुकसान", "nuksan", "nuksaan",
)  # fmt: skip
# Forms that carry their own negator: read without the negation check.
FLAT_REFUSALS = table(
    "not possible", "possible नहीं", "possible nahi", "संभव नहीं", "sambhav nahi", "सवाल ही नहीं", "sawal hi nahi",
    "no way", "पड़ता नहीं", "padta nahi", "पुसाता नहीं", "pusata nahi", "can't do", "cannot do", "won't do",
    "can not do", "phir koi baat nahi", "fir koi baat nahi", "फिर कोई बात नहीं", "to koi baat nahi", "वरना", "warna", "varna", "नहीं तो", "nahi to", "nahin to", "otherwise", "take it or leave it",
)  # fmt: skip
# "final"/"last" with the vendor's own figure ("mera rate final hai", "jo bola wahi final"); alone it is a yes.
STANDS = frozenset(key(w) for w in ("final", "फाइनल", "फ़ाइनल", "last", "लास्ट", "fix", "fixed", "फिक्स"))
MINE = frozenset(
    key(w)
    for w in ("मेरा", "mera", "my", "अपना", "apna", "हमारा", "hamara", "वही", "wahi", "vahi", "यही", "yahi", "जो",
              "jo", "same", "बोला", "bola", "said", "utna", "उतना", "itna", "इतना")
)  # fmt: skip
ONLY_THAT = table("वही लगेगा", "wahi lagega", "उतना ही", "utna hi", "itna hi lagega", "इतना ही लगेगा", "wahi rahega",
                  "वही रहेगा", "yahi rahega", "यही रहेगा", "same rate", "wahi rate", "वही रेट", "bol diya", "बोल दिया",
                  "bata diya", "बता दिया", "already told", "already said", "वोही लगेगा", "wohi lagega", "wohi rahega",
                  "वोही रहेगा", "wohi rate", "वोही रेट")  # fmt: skip
# The figure offered mocked (`_mocked`): "at this rate" and, after it, not even X, who would, would you yourself.
AT_THIS = table("इतने में", "इतने मे", "itne mein", "itne me", "itne main", "itne mai", "itne men", "इतने पैसे में",
                "itne paise mein", "इस रेट में", "इस रेट पे", "इस रेट पर", "is rate mein", "is rate pe", "is rate par",
                "इस भाव में", "is bhav mein", "is bhaav mein", "at this rate", "at that rate", "for this much",
                "for that much", "at this price", "for this price", "इतने कम में", "itne kam mein", "itna kam mein", "इतना कम में", "eh rate te",
                "is rate te", "ए रेट ते", "इस रेट ते", "for that", "at that price")  # fmt: skip
BUT = frozenset(key(w) for w in ("लेकिन", "पर", "मगर", "lekin", "par", "magar", "but", "however", "parantu", "परंतु"))
# The rate's trouble said after "but": our cost, a difficulty, too little, it does not suit.
BUT_TROUBLE = table("दिक्कत", "dikkat", "dikat", "problem", "प्रॉब्लम", "खर्चा", "kharcha", "kharch", "खर्च", "cost",
                    "मुश्किल", "mushkil", "कम है", "kam hai", "बहुत कम", "bahut kam", "too low", "too less",
                    "suit", "सूट", "महंगा", "mehnga", "mehenga", "nahi", "नहीं", "not", "can't", "cannot")  # fmt: skip
EVEN = frozenset(key(w) for w in ("भी", "bhi", "even"))
NOT_EVEN_SCOPE = 3  # words after "bhi" its negator may come ("cycle bhi na aave", "diesel bhi nahi bharega")
WHO_WOULD = table("कौन", "kaun", "kon", "who", "आप अपनी", "aap apni", "आप खुद", "aap khud", "would you", "will you",
                  "yourself", "your own")  # fmt: skip


def _stands(tokens: Sequence[str]) -> bool:
    """"mera rate final hai", "जो बोला वही फाइनल है", "उतना ही लगेगा": his own figure stands."""
    if find(tokens, ONLY_THAT, negation=True):
        return True
    return any(
        tok in STANDS and any(t in MINE for t in tokens[max(0, i - 4) : i]) and not negated(tokens, i, i + 1)
        for i, tok in enumerate(tokens)
    )


def _mocked(tokens: Sequence[str]) -> bool:
    """The figure offered mocked: "itne mein" (at this rate) and then not even X ("cycle bhi na aave"), who would
    ("kaun bhejega") or would you yourself ("aap apni gaadi bhejoge"), even after a yes word ("haan haan ...")."""
    at = [i for i, _ in find_all(tokens, AT_THIS)]
    if not at:
        return False
    negators = HINDI_NEGATORS | ENGLISH_NEGATORS
    not_even = any(t in EVEN and any(n in negators for n in tokens[i + 1 : i + 1 + NOT_EVEN_SCOPE])
                   for i, t in enumerate(tokens) if i > at[0])
    return not_even or find(tokens, WHO_WOULD)


def _but_the_rate(tokens: Sequence[str]) -> bool:
    """A yes to the argument, then "but" and the rate's trouble ("ji sab theek hai lekin rate mein dikkat hai",
    "aap theek keh rahi ho par hamara kharcha hi itna hai"); a condition after "but" stays a yes ("theek hai
    lekin payment jaldi karna")."""
    buts = [i for i, t in enumerate(tokens) if t in BUT]
    if not buts:
        return False
    after = tokens[buts[-1] + 1 :]
    return bool(find(after, BUT_TROUBLE)) or any(t in HINDI_NEGATORS - WEAK_NEGATORS for t in after)


def is_refusal(tokens: Sequence[str]) -> bool:
    """Whether this clause turns the offer down (see the module docstring). `tokens`: spelling keys."""
    return (find(tokens, REFUSALS, negation=True) or find(tokens, FLAT_REFUSALS) or _stands(tokens)
            or _mocked(tokens) or _but_the_rate(tokens))
