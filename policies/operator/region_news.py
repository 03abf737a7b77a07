"""News of where the caller lives, said after the region is set (pure, no I/O): the words that make another region
named in a sentence that asks nothing the caller's region (`nlu_regions.buried_correction` reads them).

- a move done, not one to come: "мы переехали к родителям в Актобе", "перебрались в Караганду", "біз
  Көкшетауға көштік", "былтыр көшіп келгенбіз" (not "переезжаю", "если перееду", "көшсем", "көшеміз");
- where he lives: "я теперь в Караганде", "с этого года живём в Рудном", "я уже полгода как в Актобе", "қазір
  Өскеменде тұрып жатырмын";
- his address, registration or home: "у меня адрес в Конаеве", "по прописке я в Кызылорде", "мекенжайым Ақтау",
  "моя квартира в Семее", "үйім Сәтбаев қаласында";
- the region heard or written wrong: "вы меня не так поняли", "вы же записали Павлодар", "запишите Павлодар",
  "отметьте что я из ...", "Қарағанды деп жазыңыз", "... деп белгілеңіз".

Only of himself ("я", "мы", a Kazakh verb in the first person): "сын переехал в Караганду", "мама сейчас живёт в
Таразе", "адрес офиса в Караганде" say nothing of where he lives. A place he moved or came from ("переехали из
Туркестана", "Қостанайдан көштік") is not where he lives.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_MOVED_DONE = re.compile(r"^(переехал\w*|перебрал\w*|переселил\w*|moved|кошт\w*|кошип\w*|кошкен\w*|коныстандык|коныстандым)$")
_NOW = frozenset({"теперь", "казир", "сейчас", "уже"})
_STRONG_NOW = frozenset({"теперь"})  # "я теперь в Караганде": where he is now, with no verb
_LIVES = frozenset({"живу", "живем", "живём", "проживаю", "проживаем", "нахожусь", "находимся", "турамын", "турамыз",
                    "турамиз", "тураммын", "турып", "жительства"})  # his own: "мама сейчас живёт в Таразе" is not
_SPAN = frozenset({"полгода", "год", "года", "лет", "месяц", "месяца", "месяцев", "неделю", "недели"})  # "уже полгода"
_OWN_ADDRESS = frozenset({"мекенжайым", "мекенжайымыз", "прописке", "прописан", "прописана", "тиркелген",
                          "тиркелгенмин", "тиркеуим", "уйим", "уйимиз", "патерим"})
_HOME = frozenset({"квартира", "квартиру", "дом", "прописка", "регистрация"})  # ... after "мой", "у меня": his own
_MINE = frozenset({"мой", "моя", "наш", "наша", "меня", "нас"})
_ADDRESS = frozenset({"адрес", "адресу", "мекенжай"})  # ... his own beside a word that says so (not "адрес офиса")
_WHOSE_ADDRESS = frozenset({"почтовый", "подключения", "точный", "домашний", "мой", "наш", "пошта"})
_MISHEARD = frozenset({"поняли", "понял", "поняла", "расслышали", "ослышались", "записали", "записала", "записал",
                       "записано", "записан", "запишите", "запиши", "записывайте", "отметьте", "отметь", "жазыныз",
                       "жазынызшы", "жазып", "жаздыныз", "жазылган", "белгилениз", "белгиленизши", "тусинбединиз"})
_IF = frozenset({"если", "егер", "if"})
_KK_IF = re.compile(r"(сам|сем|сак|сек|саныз|сениз)$")  # a Kazakh condition: "көшсем" (if I move)
_SELF = frozenset({"я", "мы", "мен", "биз", "меня", "нас", "i", "we"})  # not "мой": "мой брат теперь в ..."
_KK_FIRST_PERSON = re.compile(r"(мын|мин|пын|пин|бын|бин|мыз|миз|быз|биз|пыз|пиз|тым|тим|дым|дим|тык|тик|дык|дик)$")


def _about_himself(toks: Sequence[str]) -> bool:
    """The caller speaks of himself: "я", "мы", "мен", "живём", or a Kazakh verb in the first person ("көштік")."""
    return any(t in _SELF or t in _LIVES or (len(t) > 5 and _KK_FIRST_PERSON.search(t)) for t in toks)


def lives_at(toks: Sequence[str], start: int, end: int) -> bool:
    """The place at [start, end) is where he says he lives: "живём в Павлодаре", "Павлодарда тұрамын"."""
    return bool(set(toks[max(start - 2, 0) : start]) & _LIVES or set(toks[end : end + 1]) & _LIVES)


def tells_where_he_lives(toks: Sequence[str]) -> bool:
    """The words say where the caller lives now (see the module docstring); never in a condition ("если
    перееду", "Қарағандыға көшсем не істеу керек")."""
    if any(t in _IF or (len(t) > 4 and _KK_IF.search(t)) for t in toks):
        return False
    if any(t in _MISHEARD or t in _OWN_ADDRESS for t in toks):
        return True
    if any(t in _HOME and (set(toks[max(k - 1, 0) : k + 3]) & _MINE) for k, t in enumerate(toks)):
        return True  # "моя квартира в Семее", "прописка у меня в Костанае"
    if any(t in _ADDRESS for t in toks) and (_about_himself(toks) or any(t in _WHOSE_ADDRESS for t in toks)):
        return True
    moved_or_now = (any(_MOVED_DONE.match(t) for t in toks) or any(t in _STRONG_NOW or t in _LIVES for t in toks)
                    or (any(t in _NOW for t in toks) and any(t in _SPAN for t in toks)))
    return moved_or_now and _about_himself(toks)


def tells_a_move(toks: Sequence[str]) -> bool:
    """A move done is told: where he moved from ("из Шымкента", "Қарағандыдан") is then not where he lives."""
    return any(_MOVED_DONE.match(t) for t in toks)
