"""The context around a place name, read with `grammar`: is it the caller's region, and is it a change? Pure.

The region resolver (`regions.py`) finds place names by alias; this module says which of them are *not* a
region answer and what the caller asks of the rest:

- a street: "улица Абая", "на Павлодарской улице" (an adjective before a street noun), "Абай көшесі";
- a person's name: a surname made from a place ("Ерлан Актобеев", "Павлодарова") or a name after "фамилия",
  "меня зовут", "тегім" ("фамилия Костанайский");
- the old region in a change: "с Караганды на Павлодар", "Қарағандыдан Павлодарға ауыстырыңыз";
- `almaty_mentions`: "город"/"қала" and "область"/"облыс" in an answer to "city or region?" (with negation:
  "не город а область", "қала емес облыс");
- `is_correction(tokens, places)`: after the region is set, "not X but Y" ("не Павлодар а Караганда",
  "Павлодар емес Қарағанды"), a correction word and a place ("я ошибся Караганда", "қателестім Ақтөбе") or a
  place alone ("Павлодар", "да нет я из Павлодара"), with fillers but nothing else of substance (`only_glue`): "не
  в Павлодаре а в Караганде есть офис" is a question, not a correction; `buried_correction` finds one inside a
  longer sentence that asks nothing: the region set taken back or named as what was said ("я вам сказала
  Павлодар а мы ... в Актобе переехали", "мен Оралда емес Атырауда тұрамын"), or a correction word;
- `where_he_lives`: of two places, the one the caller lives in, not where he used to live or works ("я в Таразе,
  раньше в Шымкенте жил", "живу в Костанае но работаю в Астане");
- `is_change(tokens, spans)`: an explicit request to change the region, in Russian ("смените регион на
  Павлодар", "поменяйте на Караганду", "я переехал в Актобе"; not a move to come or asked about: "если я перееду
  в Алматы ...", "переезжаем в Караганду как перенести интернет", "... договор сохранится") and Kazakh, object before the verb ("аймақты
  Павлодарға ауыстырыңыз", "облысты өзгерткім келеді Қостанай", "Павлодарға ауыстырыңыз"), never a question
  about something else in a city ("как поменять тариф в городе Павлодар", "қалада тарифті өзгерту").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from policies.operator.grammar import (
    CONTRAST,
    CORRECTION,
    GLUE,
    POLITE,
    POST_NEG,
    PRE_NEG,
    Mention,
    is_negated,
    is_question,
    kk_negative_verb,
)
from policies.operator.region_news import lives_at, tells_a_move, tells_where_he_lives

STREET_BEFORE = frozenset(
    {"улица", "улице", "улицу", "улицы", "ул", "проспект", "проспекте", "пр", "просп", "переулок", "переулке",
     "пер", "бульвар", "бульваре", "микрорайон", "микрорайоне", "мкр", "площадь", "площади", "имени", "им",
     "шоссе", "трасса", "трассе", "ulitsa", "prospekt", "street"}
)
STREET_AFTER = frozenset(
    {"кошеси", "кошесинде", "кошесиндеги", "кошесине", "дангылы", "дангылында", "street", "avenue", "ave", "st"}
)
_STREET_NOUN = re.compile(
    r"^(улиц\w*|ул|проспект\w*|переул\w*|шоссе|бульвар\w*|тракт\w*|трасс\w*|площад\w*|мкр|микрорайон\w*|"
    r"набережн\w*|кошес\w*|дангыл\w*|street|avenue|road)$"
)


def names_a_street(toks: Sequence[str]) -> bool:
    """A street, an avenue or a microdistrict is named ("улица Толе би", "Сәтбаев көшесінде", "мкр Самал")."""
    return any(_STREET_NOUN.match(t) for t in toks)


_ADJECTIVE = re.compile(r"(ск|цк)(ая|ой|ую|ий|ое|ом|ого|ому|им|их|ие|ая)$")
_SURNAME_TAIL = re.compile(r"^[её]?(ев|ов|ёв)(а|у|ым|ой|ых|ы|ич\w*|н\w*)?$")
_NAME_CUE = frozenset(
    {"фамилия", "фамилией", "фамилии", "фамилию", "зовут", "имя", "аты", "атым", "тегим", "теги", "тегиниз",
     "name", "surname", "господин", "госпожа", "гражданин", "гражданка", "отчество"}
)
_SOURCE_BEFORE = frozenset({"с", "со", "из", "от", "from"})
_ABLATIVE = re.compile(r"(дан|ден|тан|тен|нан|нен|dan|den|tan|ten|nan|nen)$")
_LOCATIVE_KK = re.compile(r"(да|де|та|те|нда|нде|da|de|ta|te)$")
_LOCATIVE_BEFORE = frozenset({"в", "во", "in", "at"})

_CITY_WORD = re.compile(r"^(город\w*|гор|кала(?!й)\w*|шахар\w*|city|town)$")
_REGION_WORD = re.compile(r"^(област\w*|обл|облыс\w*|region|oblys\w*|район\w*|ауыл\w*|сел[оа]|деревн\w*|поселк\w*)$")

_REGION_NOUN = re.compile(
    r"^(регион|региона|регионы|область|области|город|города|аймак\w*|облыс\w*|онир\w*|кала(?!й)\w*|"
    r"region|city|oblys\w*|location)$"
)
_NOT_OBJECT = re.compile(r"(да|де|та|те|нда|нде|дан|ден|тан|тен|нан|нен|ында|инде|га|ге|ка|ке|е)$")
_PREPOSITIONS = frozenset({"в", "во", "на", "по", "из", "с", "со", "для", "до", "к", "to", "in", "for", "from"})
_CHANGE_VERB = re.compile(
    r"^(смен\w*|помен\w*|измен\w*|переключ\w*|перевед\w*|исправ\w*|обнов\w*|озгерт\w*|ауыстыр\w*|алмастыр\w*|"
    r"change\w*|switch\w*|update)$"
)
_OTHER = frozenset({"другой", "другую", "другая", "иной", "иную", "баска", "another", "other", "different", "жана",
                    "новый", "новую", "new"})
_WRONG = re.compile(r"^(неправильн\w*|неверн\w*|ошиб\w*|кате|wrong)$")
_MOVED = re.compile(
    r"^(переехал\w*|переезжа\w*|перееду|переехать|moved|коштим|коштик|кошип|коныс|коштык|кошкенмин)$"
)
_IF = frozenset({"если", "егер", "if", "когда", "кашан"})  # a move to come: "если я перееду в Алматы ..."
_BETWEEN_OK = frozenset(
    {"мой", "мою", "моё", "мое", "свой", "свою", "наш", "нашу", "менин", "озимнин", "бизин", "my", "our", "the",
     "на", "с", "со", "из", "to", "from", "пожалуйста", "please", "отинемин", "мне", "маган", "бы", "хочу",
     "хотел", "хотела", "можно", "нужно", "надо", "келеди", "керек", "кажет", "i", "want", "would", "like",
     "давайте", "пожалуй", "тогда", "уже", "already", "енди"}
)
MAX_GAP = 4  # tokens between the region word and the change verb


def is_street(toks: Sequence[str], start: int, end: int) -> bool:
    """The place name at [start, end) names a street ("улица Абая", "на Павлодарской улице", "Абай көшесі")."""
    before = toks[start - 1] if start > 0 else ""
    after = toks[end] if end < len(toks) else ""
    if before in STREET_BEFORE or after in STREET_AFTER:
        return True
    return bool(_ADJECTIVE.search(toks[end - 1])) and bool(_STREET_NOUN.match(after))


def is_person_name(toks: Sequence[str], start: int, end: int, base: str) -> bool:
    """The place name is part of a person's name: a surname suffix after the place's stem ("актобеев"), or a
    name cue just before ("фамилия костанайский", "меня зовут ...")."""
    token = toks[end - 1]
    if base and token.startswith(base) and _SURNAME_TAIL.match(token[len(base):]):
        return True
    return any(t in _NAME_CUE for t in toks[max(0, start - 3):start])


@dataclass(frozen=True, slots=True)
class Place:
    """A place name found at tokens [start, end); `tail` is the inflection after the alias stem ("дан")."""

    start: int
    end: int
    code: str
    tail: str
    before: str  # the token before the name

    @property
    def locative(self) -> bool:
        """ "в Павлодаре", "Павлодарда": where something is, not where to go."""
        return self.before in _LOCATIVE_BEFORE or bool(_LOCATIVE_KK.search(self.tail))

    @property
    def source(self) -> bool:
        """In a change request, the place the caller moves away from ("с Караганды", "Қарағандыдан")."""
        return self.before in _SOURCE_BEFORE or bool(_ABLATIVE.search(self.tail))


def almaty_mentions(toks: Sequence[str]) -> list[Mention]:
    """"город"/"қала" (-> city) and "область"/"облыс" (-> region) in an answer to "city or region?"."""
    out = []
    for i, t in enumerate(toks):
        if _CITY_WORD.match(t):
            out.append(Mention(i, i + 1, "city"))
        elif _REGION_WORD.match(t):
            out.append(Mention(i, i + 1, "region"))
    return out


def _in_spans(i: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(a <= i < b for a, b in spans)


def _gap_ok(toks: Sequence[str], lo: int, hi: int, spans: Sequence[tuple[int, int]]) -> bool:
    if hi - lo > MAX_GAP:
        return False
    return all(toks[k] in _BETWEEN_OK or toks[k] in POLITE or _in_spans(k, spans) for k in range(lo, hi))


def _is_object(toks: Sequence[str], i: int) -> bool:
    t = toks[i]
    if i > 0 and toks[i - 1] in _LOCATIVE_BEFORE | {"по"}:
        return False
    if t in ("регион", "региона", "регионы", "область", "области", "город", "города", "region", "city"):
        return not (i > 0 and toks[i - 1] in ("в", "во", "по"))
    return not _NOT_OBJECT.search(t)


def is_change(toks: Sequence[str], places: Sequence[Place]) -> bool:
    """An explicit region change request (see the module docstring); `places` are the place names found."""
    spans = [(p.start, p.end) for p in places]
    verbs = [j for j, t in enumerate(toks) if _CHANGE_VERB.match(t)]
    verbs = [j for j in verbs if not kk_negative_verb(toks[j]) and not is_negated(toks, Mention(j, j + 1, "verb"))]
    for i, t in enumerate(toks):
        if not _REGION_NOUN.match(t):
            continue
        if i > 0 and toks[i - 1] in _OTHER and _is_object(toks, i) and (i < 2 or toks[i - 2] not in _PREPOSITIONS):
            return True  # "другой регион", "басқа аймақ", "новый город"; not "звонок в другой город"
        if any(_WRONG.match(x) for x in toks[max(0, i - 2):i + 3]):
            return True  # "регион неправильный", "аймақ қате"
        if not _is_object(toks, i):
            continue
        for j in verbs:
            lo, hi = (i + 1, j) if i < j else (j + 1, i)
            if _gap_ok(toks, lo, hi, spans):
                return True
    moved = any(_MOVED.match(t) and not is_negated(toks, Mention(j, j + 1, "moved")) for j, t in enumerate(toks))
    moved = moved and not is_question(toks) and not any(t in _IF for t in toks)  # "переезжаю в X как перенести"
    moved = moved and only_glue(toks, spans, also=_MOVED)  # "переезжаем в Актау договор сохранится": asked
    for place in places:
        if moved:
            return True  # "я переехал в Актобе", "Ақтөбеге көшіп келдім"
        if place.locative:
            continue
        for j in verbs:
            lo, hi = (place.end, j) if place.end <= j else (j + 1, place.start)
            if hi - lo <= 2 and all(toks[k] in GLUE or toks[k] in POLITE or _in_spans(k, spans) for k in range(lo, hi)):
                return True
    return False


_CORRECTION_WORD = re.compile(
    r"^(ошиб\w*|путаниц\w*|поправ\w*|исправ\w*|неправильн\w*|правильн\w*|неверн\w*|оговор\w*|перепут\w*|точнее|вернее|тоесть|"
    r"кателес\w*|кате|катем|катемин|катемиз|кателик\w*|жанылыс\w*|дурысы|дурыс|ягни|жангылыс\w*|шатаст\w*|тузет\w*|wrong|mistake|correction|sorry|actually|мистаке|мистейк|вронг|сорры)$"
)
_CORRECTION_GLUE = frozenset(
    {"то", "есть", "имел", "имела", "ввиду", "виду", "сказал", "сказала", "сказать", "назвал", "назвала", "говорю",
     "живу", "проживаю", "нахожусь", "звоню", "турамын", "тураммын", "туратынмын", "айттым", "айтып", "айтым",
     "кешириниз", "кешир", "мен", "я", "мы", "у", "нас", "меня", "биз", "регион", "область", "области", "облыс",
     "облысы", "облысынан", "облысында", "город", "города", "городе", "кала", "каласы", "каласында", "аймак",
     "емеспин", "емеспиз", "не", "нет", "жок", "а", "сори", "i", "said", "meant", "am", "from", "it", "is", "my",
     "менин", "биздин", "its"}
)
# What a caller says around a correction that carries no question: "да нет", "алло", "подождите", "я имею в
# виду", "в смысле", "вообще-то", "я же говорю", "ой нет регион другой"; Kazakh "иә", "қойшы", "хабарласып тұрмын",
# "тоқтаңыз" (stop), "облысым басқа" (my region is another); news and insistence: "забыл сказать", "хотя",
# "у меня адрес в", "мекенжайым", "дегенмен" (after all) (folded).
_DISCOURSE = frozenset(
    {"да", "алло", "ало", "але", "алле", "стоп", "так", "подождите", "погодите", "подожди", "погоди", "секунду",
     "секундочку", "минутку", "момент", "ага", "угу", "ладно", "окей", "ок", "слушай", "слушайте", "смотрите",
     "имею", "имел", "имела", "виду", "смысле", "говорил", "говорила", "хотел", "хотела", "ошибочка", "сорри",
     "вообщето", "вообще", "всмысле", "просто", "живем", "проживаем", "находимся", "звоним", "щас", "сейчас",
     "ай", "иа", "ия", "ие", "койшы", "кой", "сосын", "мына", "ана", "гой", "гана", "енди", "жанагы", "алги",
     "хабарласып", "хабарласам", "хабарласамын", "звондап", "турмын", "отырмын", "жатырмын", "турамыз",
     "айтайын", "айттым", "айтам", "айтамын", "айтып", "деймин", "деймиз", "дедим", "деп", "болды", "okay", "ok",
     "yes", "yeah", "hello", "wait", "mean", "самом", "самой", "самый", "самим", "озим", "озимиз", "сам", "сама",
     "само", "ози", "озинде", "каланын", "облыстын", "это", "вот", "там", "тут", "боламын", "боламыз", "болам",
     "район", "районе", "района", "аудан", "ауданы", "ауданында", "ауданынан", "келдим", "келдик", "кеттим",
     "кеттик", "едим", "едик", "уже", "недавно", "сюда", "насовсем", "жакында", "жуырда", "мы", "мен", "биз", "надо", "нужно",
     "ой", "ой-ой", "токтаныз", "токта", "токтай", "токташы", "токтаныздар", "нажал", "нажала", "другой", "другая",
     "другое", "баска", "облысым", "облысымыз", "регионым", "аймагым", "секунд", "екен", "тот", "кайта",
     "кстати", "вообщем", "январе", "феврале", "марте", "апреле", "мае", "июне", "июле", "августе", "сентябре",
     "октябре", "ноябре", "декабре", "месяц", "назад", "году", "прошлом", "этом", "неделе", "былтыр",
     "жылы", "откен", "айда", "бурын", "все", "таки", "всетаки", "сонда", "барибир", "верно", "точно", "именно",
     "ничего", "путаю", "каласынын", "облысынын", "прописан", "прописана", "прописаны", "тиркелгенмин",
     "дегенмен", "айтсе", "де", "казир", "хотя", "забыл", "забыла", "забыли", "умытып", "умыттым", "адрес", "адресу",
     "мекенжай", "мекенжайым", "мекенжайымыз", "прописке", "фактически", "теперь", "итоге", "деле", "айтеуир",
     "айтпакшы", "шынымды", "шынында", "айтсам", "жазыныз", "биыл", "за", "городом", "поставьте", "укажите", "койыныз", "койынызшы"}
)


def only_glue(toks: Sequence[str], spans: Sequence[tuple[int, int]], also: re.Pattern[str] | None = None) -> bool:
    """Every word outside `spans` is glue, politeness, discourse or a word of a correction (see `is_correction`),
    or one `also` matches."""
    return not any(
        not _in_spans(k, spans) and not _CORRECTION_WORD.match(t) and not (also and also.match(t))
        and t not in _CORRECTION_GLUE
        and t not in _DISCOURSE and t not in GLUE and t not in POLITE and t not in CORRECTION and t not in CONTRAST
        and t not in PRE_NEG and t not in POST_NEG
        for k, t in enumerate(toks)
    )


# What a caller says of the region he named before ("я вам сказала Павлодар", "по привычке сказал", "на самом деле",
# "Тараз деп ... қате", "дұрыс айтпадым"): with another region named, a correction however long the sentence
_SAID = frozenset({"сказал", "сказала", "назвал", "назвала", "говорил", "говорила", "айттым", "айттык", "деп",
                   "самом", "привычке", "айтпадым", "айтпапын", "айтыппын"})
_ASKS_THERE = frozenset({"есть", "можно"})  # "не в Павлодаре а в Караганде есть офис": a question with no question word
_SINCE = frozenset({"года", "лет", "год", "полгода", "месяц", "месяца", "месяцев", "уже", "так"})  # "три года как": no question
# Two places compared ("в Шымкенте дешевле чем в Таразе", "Таразда арзанырақ па"): a question about both, no correction
_INSIST = frozenset({"же", "гой", "ведь"})  # "я же из Караганды", "қарағандыданмын ғой"
_SELF = frozenset({"я", "мы", "мен", "биз"})  # "я же в Шымкенте": insisting on where he is
_RESIDES = frozenset({"звоню", "живу", "живем", "проживаю", "нахожусь", "турамын", "турамыз", "хабарласып"})
_TAG_QUESTION = frozenset({"разве", "ли", "ма", "ме", "ба", "бе", "па", "пе", "еди"})
_NOW = frozenset({"теперь", "сейчас", "уже", "казир", "енди"})  # "мы переехали, теперь в Кокшетау": a move done
_COMPARES = frozenset({"чем", "дешевле", "дороже", "лучше", "хуже", "быстрее", "медленнее", "одинаково", "одинаковые",
                       "одинаковый", "одинаковая", "разница", "разницы", "арзанырак", "кымбатырак", "жылдамырак"})


_KIND = frozenset({"город", "города", "городе", "область", "области", "кала", "каласы", "облыс", "облысы"})
_NOT = frozenset({"не", "емес"})


def taken_back(toks: Sequence[str], place: Place) -> bool:
    """The place is negated (`grammar.is_negated`, strict): "не Караганда", "не из Уральска", "Оралда емес", "не
    город Астана"."""
    if place.start >= 2 and toks[place.start - 1] in _KIND and toks[place.start - 2] in _NOT:
        return True  # "не город Астана а Акмолинская область"
    return is_negated(toks, Mention(place.start, place.end, place.code), strict=True)


def _place_next(toks: Sequence[str], k: int, places: Sequence[Place]) -> bool:
    """A place starts at `k`, or right after a preposition there ("я же в Шымкенте", "мы же из Тараза")."""
    k += toks[k] in ("в", "во", "из", "с") if k < len(toks) else 0
    return any(p.start == k for p in places)


def buried_correction(toks: Sequence[str], places: Sequence[Place], current: str) -> Place | None:
    """After the region `current` is set, a correction inside a longer sentence, asking nothing (`is_question`):
    the region set taken back ("договор не на Караганду оформлен а на Костанай", "мен Оралда емес Атырауда
    тұрамын") or named as what was said ("я вам сказала Павлодар а мы ... в Актобе переехали"), or a correction
    word ("я в другом регионе ошибся Кызылорда"), or a move done ("забыл, мы переехали, я теперь в Кокшетау
    живу"); then the last other region named (not one taken back) is the caller's. None otherwise: "в Павлодаре и в Караганде тарифы одинаковые" takes nothing back."""
    kept = [p for p in places if not taken_back(toks, p)]
    others = [p for p in kept if p.code != current]
    asks = [t for k, t in enumerate(toks) if not (t == "как" and toks[k - 1 : k] and toks[k - 1] in _SINCE)]
    insisted = any(t in _INSIST for t in toks) and (
        any(t in _RESIDES or _ABLATIVE.search(t) for t in toks)
        or any(t in _INSIST and k > 0 and toks[k - 1] in _SELF and _place_next(toks, k + 1, places)
               for k, t in enumerate(toks)))
    if insisted:  # "а разве не Караганда, я же из Караганды звоню": a tag question that insists, no question
        asks = [t for t in asks if t not in _TAG_QUESTION]
    if not kept or is_question(asks) or any(t in _COMPARES for t in toks) or any(
            t in _ASKS_THERE and toks[k - 1 : k] != ["то"] for k, t in enumerate(toks)):
        return None
    own = [p for p in places if p.code == current]
    back = any(taken_back(toks, p) for p in own)
    moved_now = any(_MOVED.match(t) and not t.startswith("переезжа") for t in toks) and any(t in _NOW for t in toks)
    news = tells_where_he_lives(toks)  # "мы переехали в Актобе", "я теперь в Караганде", "у меня адрес в ..."
    marked = (any(_CORRECTION_WORD.match(t) for t in toks) or (own and any(t in _SAID for t in toks)) or moved_now
              or insisted or news)
    if news and tells_a_move(toks):  # "мы переехали из Туркестана в ...": where he moved from is not it
        others = [p for p in others if not p.source]
    if news and any(lives_at(toks, p.start, p.end) for p in own):  # "дом в Караганде, а живём в Павлодаре"
        return None
    if others and (marked or back):
        return others[-1]
    return kept[-1] if back else None  # "не в Павлодаре а в Экибастузе": the region set, by another of its places


def is_correction(toks: Sequence[str], places: Sequence[Place]) -> bool:
    """A correction of the region already set (see the module docstring): every word but the places is glue,
    politeness, discourse or a word of the correction itself ("алло девушка не Караганда а Павлодар"); so a
    place alone is one too ("Павлодар", "нет нет Павлодар", "мен Павлодарданмын")."""
    spans = [(p.start, p.end) for p in places]
    return bool(spans) and only_glue(toks, spans)


# Where the caller used to live or works, not where he lives ("раньше в Шымкенте жил", "бұрын Оралда тұрдым",
# "работаю в Астане", "жұмысым Алматыда"): marked by a word before the place (a preposition between) or after it.
_ASIDE_BEFORE = frozenset({"раньше", "прежде", "ранее", "бурын", "работаю", "работает", "работаем", "учусь", "учится",
                           "жумысым", "жумысымыз", "жумыс", "езжу", "ездим", "ездит", "еду", "едем", "мотаюсь",
                           "катаюсь", "дача", "дачу", "даче", "рядом", "возле", "около", "недалеко"})
_ASIDE_AFTER = frozenset({"жил", "жила", "жили", "турдым", "турдык", "турганмын", "туратынмын", "туратын",
                          "жумыс", "жумыстамын", "истеймин", "оку", "окимын", "барып", "барамын", "барам", "барамыз",
                          "катынаймын", "катынаймыз"})
_ASIDE_REACH = 2  # words between the marker and the place (a preposition, a particle)


def where_he_lives(toks: Sequence[str], places: Sequence[Place]) -> list[Place]:
    """`places` without those named as where the caller used to live, works, goes to or is near, when another place
    is left ("я в Таразе, раньше в Шымкенте жил" is Taraz; "живу в Костанае но работаю в Астане" is Kostanay; "я из
    Семея но часто езжу в Павлодар" is Semey; "в Косшы, это рядом с Астаной" is Kosshy)."""
    def aside(p: Place) -> bool:  # the words next to it, up to the place before or after it
        lo = max([q.end for q in places if q.end <= p.start] + [p.start - 1 - _ASIDE_REACH, 0])
        hi = min([q.start for q in places if q.start >= p.end] + [p.end + 1 + _ASIDE_REACH])
        return any(t in _ASIDE_BEFORE for t in toks[lo : p.start]) or any(t in _ASIDE_AFTER for t in toks[p.end : hi])

    lives = [p for p in places if not aside(p)]
    return lives if lives and len({p.code for p in places}) > 1 else list(places)

