"""Caller intents honoured in any state, understood with `grammar`: asking for a human, and saying goodbye. Pure.

Handoff: a *person* (оператор, специалист, менеджер, консультант, сотрудник, живой человек, кто-нибудь; kk
маман, қызметкер, кеңесші, тірі адам, біреу; en operator, human, someone) together with a *request* (соедините,
позовите, дайте, хочу поговорить, нужен; kk байланыстырыңыз, қосыңызшы, жалғаңыз, шақырыңыз, сөйлескім келеді,
керек; en connect, talk, need), in any order and any case ending, not negated ("оператор не нужен",
"операторға қоспаңыз"); or a person alone as a short answer ("специалиста пожалуйста", "маманға"); or refusing
the bot ("не хочу с роботом", "роботпен сөйлескім келмейді"). Not a handoff: a person that is a thing to ask
about ("мобильный оператор", "оператор связи", "специалист приедет на дом", "тариф на двух человек").

Closing: a farewell ("до свидания", "сау болыңыз", "қош болыңыз", "goodbye") or a "that's all" ("всё, спасибо",
"болды рахмет", "басқа сұрағым жоқ"), unless the caller goes on ("спасибо, а ещё вопрос", a question word).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from policies.operator.grammar import (
    CONTRAST,
    CORRECTION,
    GLUE,
    POLITE,
    PRE_NEG,
    analyse,
    content,
    is_question,
    kk_negative_verb,
    kk_noun,
)

MAX_DISTANCE = 2  # a request and the person it asks for: at most one meaningful word between them
SHORT_ANSWER = 3  # at most this many tokens (politeness aside) for a bare "оператор" to count

_AGENT = re.compile(
    r"^(оператор\w{0,5}|специалист\w{0,4}|менеджер\w{0,5}|консультант\w{0,5}|сотрудник\w{0,4}|диспетчер\w{0,4}|"
    r"человеком|человека|человеку|человек|людьми|людей|люди|"
    r"кемнибудь|когонибудь|ктонибудь|"
    r"operator\w{0,2}|human|person|someone|somebody|anyone|agent|manager|specialist|consultant|representative)$"
)
_KK_AGENT = kk_noun("маман", "кызметкер", "кенесши", "адам", "оператор", "менеджер", "консультант", "биреу")
_LIVE = re.compile(r"^(живой|живого|живым|живому|живая|живую|живые|живых|живыми|тири|реальн\w*|настоящ\w*|live|real)$")
_REQUEST = re.compile(
    r"^(соедин\w*|переключ\w*|перевед\w*|переадрес\w*|позов\w*|позва\w*|подзов\w*|свяж\w*|связат\w*|связыв\w*|"
    r"поговор\w*|говорить|пообщ\w*|общат\w*|пригласи\w*|подключите|подключи|подключить|дозвон\w*|дайте|дай|хочу|хотел\w*|нужен|нужна|"
    r"нужно|надо|можно|требуется|байланыс\w*|кос(ыныз|ш|у|ып|асыз|ындар|ыл)\w*|жалга\w*|шакыр\w*|сойлес\w*|"
    r"бериниз\w*|берши|бериниздер|керек|кажет|ауыстыр\w*|connect\w*|transfer\w*|talk|speak|put|get|give|want|"
    r"need|call)$"
)
_BOT = re.compile(r"^(бот\w{0,3}|робот\w{0,5}|машин\w{0,3}|автоответчик\w{0,3}|bot|robot|machine)$")
_YOU = frozenset({"ты", "вы", "сен", "сиз", "are", "you", "это"})
_FED_UP = frozenset({"надоел", "надоело", "хватит", "достал", "достало", "жалыктым", "stop"})
_NOT_A_PERSON_NEXT = re.compile(r"^(связи|сотов\w*|мобильн\w*|интернет\w*|кол|call)$")
_NOT_A_PERSON_PREV = re.compile(
    r"^(мобильн\w*|сотов\w*|байланыс|уялы|mobile|другого|другому|другой|у|через|про|о|об|для)$"
)
_VISIT = re.compile(
    r"^(дом|домой|выезд\w*|приед\w*|придет|придут|прийти|приехать|вызов\w*|мастер\w*|уйге|уйиме|уйимизге|"
    r"келеди|келип|келу|келеме|home)$"
)
_WANT = re.compile(r"\w+(гым|гим|кым|ким)$")  # "сөйлескім келеді": "I want to speak", not "comes"
_COUNT = re.compile(
    r"^(\d+|один|одного|два|двух|двоих|три|трех|троих|четыр\w*|пят\w*|шест\w*|сем(ь|и)|восьм\w*|восем\w*|"
    r"девят\w*|десят\w*|сколько|несколько|много|бир|еки|уш|торт|бес|алты|жети|сегиз|тогыз|он|неше|канша|коп)$"
)
_INFINITIVE = re.compile(r"^\w+(ть|ться|ти|чь)$")
_NEED_NEG = frozenset({"не", "без", "not", "dont", "cant", "never", "without", "емес", "кажет"})

_FAREWELL = re.compile(
    r"\b(до свидания|всего доброго|всего хорошего|хорошего дня|хорошего вечера|до встречи|прощайте|"
    r"сау болыныз|сау болыныздар|сау бол|сау болындар|саубол\w*|кош болыныз|кош бол|кош сау болыныз|"
    r"корискенше|жаксы кун тилеймин|перезвоню|кейин хабарлас\w*|кейин коныроу шал\w*|goodbye|bye|see you|"
    r"have a nice day|call back later)\b"
)
_DONE = re.compile(
    r"\b(вс[её] спасибо|спасибо вс[её]|это вс[её]|на этом вс[её]|вс[её] понятно спасибо|спасибо вс[её] понятно|"
    r"больше ничего|больше вопросов нет|вопросов больше нет|вопросов нет|нет вопросов|нет спасибо|"
    r"ничего не надо спасибо|рахмет болды|болды рахмет|бари тусиникти рахмет|тусиникти рахмет болды|"
    r"жок рахмет|рахмет жок|баска сурак жок|баска сурагым жок|сурагым жок|сурак жок|сурагым болмайды|"
    r"баска ештене керек емес|ештене керек емес|ештеме керек емес|no thanks|thats all|nothing else)\b"
)
_BARE_FAREWELL = frozenset({"пока", "спасибо пока", "пока пока", "bye", "кош", "рахмет кош", "болды", "all right bye"})
_GOES_ON = frozenset({"еще", "тагы", "кстати", "бирак", "но", "but", "also", "another", "деп"})
_PRONOUNS = frozenset(
    {"у", "вас", "вам", "вами", "меня", "мне", "нам", "нас", "сиз", "сизде", "сизге", "маган", "мени", "бизге",
     "you", "your", "me", "us"}
)
_NEED = frozenset({"нужен", "нужна", "нужно", "нужны", "надо", "керек", "кажет", "need"})
_WHETHER = frozenset({"ли", "ма", "ме", "ба", "бе", "па", "пе"})
_IS_THERE = frozenset({"есть", "бар", "there"})  # a short "есть живой оператор?", "тірі адам бар ма"
_HAS = frozenset({"бар", "есть", "have"})


def _next(toks: Sequence[str], i: int) -> int:
    k = i + 1
    while k < len(toks) and toks[k] in GLUE:
        k += 1
    return k


def _negated_at(toks: Sequence[str], i: int) -> bool:
    """`toks[i]` (a person or a request) is negated: "не соединяйте", "без оператора", "не хочу говорить с ...",
    "оператор не нужен", "маман керек емес", "операторға қоспаңыз", "қосылғым келмейді"."""
    if kk_negative_verb(toks[i]):
        return True
    j = i - 1
    while j >= 0 and toks[j] in GLUE:
        j -= 1
    if j >= 0 and toks[j] in PRE_NEG:
        return True
    if j >= 0 and _INFINITIVE.match(toks[i]) and _REQUEST.match(toks[j]) and _negated_at(toks, j):
        return True  # "не хочу говорить": the infinitive depends on the negated verb
    k = _next(toks, i)
    if k >= len(toks):
        return False
    after = toks[k + 1] if k + 1 < len(toks) else ""
    if toks[k] == "не" and (_REQUEST.match(after) or after in ("нужен", "нужна", "нужно", "надо")):
        return True
    return toks[k] == "емес" or kk_negative_verb(toks[k]) or (toks[k] in ("керек", "кажет") and after == "емес")


def _distance(toks: Sequence[str], i: int, j: int) -> int:
    """Words between `i` and `j` that carry meaning (politeness and glue do not count), plus one."""
    lo, hi = min(i, j), max(i, j)
    return 1 + sum(1 for t in toks[lo + 1:hi] if t not in GLUE and t not in POLITE and t not in _PRONOUNS)


def _asks_whether(toks: Sequence[str], i: int) -> bool:
    """ "нужен ли специалист", "маман керек пе": a question whether one is needed, not a request."""
    return toks[i] in _NEED and i + 1 < len(toks) and toks[i + 1] in _WHETHER


def _is_person(toks: Sequence[str], i: int) -> bool:
    t = toks[i]
    if not (_AGENT.match(t) or _KK_AGENT.match(t) or _LIVE.match(t)):
        return False
    prev = toks[i - 1] if i > 0 else ""
    nxt = toks[i + 1] if i + 1 < len(toks) else ""
    if _NOT_A_PERSON_PREV.match(prev) or (t.startswith(("оператор", "operator")) and _NOT_A_PERSON_NEXT.match(nxt)):
        return False
    if t.startswith(("человек", "люд", "адам")) or t in ("person", "human"):
        before = toks[max(0, i - 2):i]
        if any(_COUNT.match(b) for b in before) and not any(_LIVE.match(b) for b in before):
            return False
    if t.startswith(("люд",)):
        return any(_LIVE.match(b) for b in toks[max(0, i - 2):i])
    visitor = t.startswith(("специалист", "specialist", "маман", "сотрудник", "кызметкер", "мастер"))
    return not (visitor and _visit(toks))  # "маманды үйге шақыру": a visit, not a call


def _visit(toks: Sequence[str]) -> bool:
    """The utterance is about someone coming to the caller ("приедет на дом", "үйге келеді")."""
    return any(_VISIT.match(t) and not (k > 0 and _WANT.match(toks[k - 1])) for k, t in enumerate(toks))


def _clauses(toks: Sequence[str]) -> list[tuple[int, int]]:
    spans, start = [], 0
    for i, t in enumerate(toks):
        if t in CONTRAST or t in ("нет", "жок") or (t in CORRECTION and t not in ("давайте", "давай")):
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(toks)))
    return [(a, b) for a, b in spans if b > a]


def _bot_refused(toks: Sequence[str], a: int, b: int) -> bool:
    for i in range(a, b):
        if not _BOT.match(toks[i]):
            continue
        before = toks[max(a, i - 2):i]
        if any(x in _YOU for x in before) and not any(x in _FED_UP for x in toks[a:b]):
            continue  # "ты бот?", "вы не робот?": a question about the bot, not a refusal
        clause = toks[a:b]
        if any(x in _NEED_NEG or x in _FED_UP or kk_negative_verb(x) for x in clause):
            return True
    return False


def is_handoff_request(text: str) -> bool:
    """The caller asks for a human (see the module docstring)."""
    toks = analyse(text or "").cyr
    if not toks:
        return False
    for a, b in _clauses(toks):
        people = [i for i in range(a, b) if _is_person(toks, i) and not _negated_at(toks, i)]
        short = sum(1 for t in content(toks[a:b]) if t not in _PRONOUNS and t not in _WHETHER) <= SHORT_ANSWER
        requests = [
            i for i in range(a, b)
            if (_REQUEST.match(toks[i]) or (short and toks[i] in _IS_THERE))
            and not _is_person(toks, i)
            and not _asks_whether(toks, i)
        ]
        for p in people:
            if requests:
                nearest = min(requests, key=lambda r: (_distance(toks, p, r), -r))
                if _distance(toks, p, nearest) <= MAX_DISTANCE and not _negated_at(toks, nearest):
                    return True
                continue
            rest = [t for t in toks[a:b] if t not in POLITE and t not in GLUE]
            if len(rest) <= SHORT_ANSWER and all(_AGENT.match(t) or _KK_AGENT.match(t) or _LIVE.match(t) for t in rest):
                return True
        if _bot_refused(toks, a, b):
            return True
    return False


_THANKS = frozenset({"спасибо", "рахмет", "благодарю", "thanks", "thank", "you"})


def ends_on_farewell(text: str) -> bool:
    """A goodbye (`is_closing`) whose last words are the farewell itself ("всё понятно спасибо до свидания",
    "рахмет сау болыңыз"; thanks or politeness after it aside): nothing is left to say after it."""
    if not is_closing(text):
        return False
    toks = list(analyse(text or "").cyr)
    while toks and (toks[-1] in POLITE or toks[-1] in _THANKS):
        toks.pop()
    tail = " ".join(toks)
    return bool(toks) and (toks[-1] == "пока" or any(m.end() == len(tail) for m in _FAREWELL.finditer(tail)))


def is_closing(text: str) -> bool:
    """The caller says goodbye or "that's all" and does not go on (see the module docstring)."""
    utt = analyse(text or "")
    toks = utt.cyr
    if not toks:
        return False
    joined = " ".join(toks)
    if joined in _BARE_FAREWELL or (toks[-1] == "пока" and len(content(toks)) <= SHORT_ANSWER):
        return True  # "ну всё пока", but not "пока не работает"
    cyr_text = utt.cyr_text
    farewell = _FAREWELL.search(cyr_text)
    done = _DONE.search(cyr_text)
    if not (farewell or done):
        return False
    if is_question(toks) or any(t in _GOES_ON for t in toks):
        return False
    # "that's all" with "сұрағым бар"/"есть": the caller still has something
    return bool(farewell) or not any(t in _HAS for t in toks)
