"""Follow-ups to what the operator just said: "say that again" and yes/no to an offered specialist. Pure.

Each detector accepts an utterance only when it is *nothing but* the follow-up (cue words plus politeness and
fillers), in Russian or Kazakh, on folded text (`text.fold`): "ещё раз пожалуйста", "не расслышал, повторите",
"қайталаңызшы", "тағы бір рет айтыңызшы" repeat; "ещё раз про роуминг" is a new question and "по-казахски не
понимаю" is about the language, not a request to repeat; "стоп", "подождите секунду", "тоқтаңыз" hold on (no
question to search for).
"""

from __future__ import annotations

import re

from policies.operator.text import fold

_REPEAT_CUES = re.compile(
    r"\b(ещ[её] (раз\w*|разок|разочек)|повтор\w*|по новой|заново|"
    r"не (рас)?слыш\w*|не услыш\w*|не понял\w*|не понятно|не разобрал\w*|плохо слышно|"
    r"что что|что вы сказали|что ты сказал\w*|чего|как как|"
    r"кайтала\w*|кайта айт\w*|тагы (бир )?(рет|марте|да)|тагы айт\w*|"
    r"естимей (калдым|тур\w*)|естимедим|ести алмадым|тусинбедим|тусинбей калдым|не дедин\w*|калай дедин\w*|"
    r"repeat|say (it )?again|pardon)\b"
)
_REPEAT_FILLERS = frozenset(fold(
    "пожалуйста извините простите прошу алло а ну вот можно вы мне ещё еще раз скажите сказать сказали ответ "
    "это последнее что вы сказали я не понял девушка будьте добры добра медленнее помедленнее погромче "
    "кешіріңіз өтінемін айтыңызшы айтыңыз айтып жіберіңізші жіберіңіз жауапты соңғы мен сіз ғой баяуырақ "
    "қаттырақ қайта тағы бір рет please sorry").split())

_YES = frozenset(fold(
    "да давайте давай конечно хорошо ага угу ок окей можно соедините соединяйте переключите да давайте "
    "иә ия йә әрине жарайды болады қосыңыз қоса беріңіз yes ok okay").split())
_NO = frozenset(fold("нет не надо не нужно не стоит спасибо не жоқ керек емес қажет емес рахмет no").split())
_POLITE = frozenset(fold("пожалуйста ну а вот же өтінемін ал енді please").split())
_HOLD = frozenset(fold(
    "стоп подождите погодите подожди погоди секунду секундочку секунда минутку минуточку момент сейчас щас алло "
    "ало але алле так девушка тоқтаңыз тоқта тоқташы күте тұрыңыз күтіңіз бір минут минут сәл wait hold on "
    "hello").split())


def is_repeat_request(text: str) -> bool:
    """The caller asks to hear the last line again, and nothing else."""
    folded = fold(text)
    if not _REPEAT_CUES.search(folded):
        return False
    rest = _REPEAT_CUES.sub(" ", folded).split()
    return all(word in _REPEAT_FILLERS for word in rest)


def _only(text: str, words: frozenset[str]) -> bool:
    content = [w for w in fold(text).split() if w not in _POLITE]
    return bool(content) and all(w in words for w in content)


def is_yes(text: str) -> bool:
    """A bare "yes" ("да, давайте", "иә, қосыңыз")."""
    return _only(text, _YES)


def is_no(text: str) -> bool:
    """A bare "no" ("нет, не надо", "жоқ, керек емес")."""
    return _only(text, _NO) and not _only(text, _YES)


def is_hold_on(text: str) -> bool:
    """Nothing but "wait", "stop" or "hello" ("стоп", "подождите секунду", "алло алло", "тоқтаңыз"): no question
    to search for; the operator says it is listening."""
    return _only(text, _HOLD)
