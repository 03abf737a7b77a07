"""The vocabulary of the relevance score (data only, parsed once at import; see relevance.py).

The tables, written in plain (unfolded) Russian/Kazakh and folded at import like the texts they are matched
against (lower case, `ё`->`е`, Kazakh letters onto their nearest Russian ones):

- `FILLER_WORDS`: words that carry no topic: function words, ASR fillers ("ну", "короче", "әлгі"), politeness,
  question words and the auxiliary verbs of a question ("подскажите", "хотел узнать", "білгім келеді").
- `CONCEPTS`: synonym sets of the customer-service domain the knowledge base covers, Russian and Kazakh stems in
  one set, so "инет", "интернетті" and "интернет" are one term and a Kazakh question can match a Russian article.
  A stem matches a word it starts with (at most `MAX_CONCEPT_TAIL` letters of ending follow); a stem ending in
  `=` matches only the whole word. The longest stem wins ("бұзыл" = broken, "бұз" = terminate). Each set has a
  weight: a topic word 1.0, a word every article shares (internet, home, service) or a facet of a question (price,
  time, place) less, and names of products and companies that are not ours more (the `foreign 3` set; banks by
  name, `lender`; a money transfer; the weather): a question about them is not answered by an article that lacks
  them.
- `PHRASES`: word sequences that name a concept only together ("сим карта", "вай фай", "қайта есептеу"; a word
  written "күн=" only whole: "күн ашық" is the weather, "жексенбі күні ашық" opening hours); a negator next to a
  "works" word makes `broken` (`NEGATORS`); `ENDINGS` are stripped from plain words.
- `COMBINATIONS`: concepts anywhere in a question that together name another ("return" + "money": refund;
  "works" + "night": opening hours), unless one listed after "|" is there too; the parts then have no term of
  their own, but one written "+concept" keeps its term ("abroad_place +mobile": abroad, and still the phone);
  `PLACES`: the concepts that name a region or city (store.py: another region's article).

A word is looked up as said and by its normal form (morphology.py: the Russian lemma, the Kazakh stem), so a
stem written with "=" may be a lemma ("закинуть=" matches "закинул", "закиньте").

The two longest tables are kept in lexicon_words.py, the phrases in lexicon_phrases.py; how callers say the
topics colloquially (slang, loanwords, ASR misspellings, Kazakh colloquial forms) in lexicon_colloquial.py, whose
stems, phrases and negated verbs are joined here onto the concepts of the same names (`CONCEPTS`), `PHRASES` and
`NEGATED_VERBS`; how they describe their situation (places abroad, services that are not ours, a story's openers)
in lexicon_situations.py, joined alike, whose `NEW_CONCEPTS` are added after them (a name taken already is an
error); how they describe their devices (a video that stalls, the box's code, a fixed IP) in lexicon_devices.py,
joined alike after lexicon_situations; how they ask about their account and contract (paying ahead, a penalty, a
debt paid off) in lexicon_accounts.py, joined alike, its stems appended last (so also onto the new concepts before).
"""

from __future__ import annotations

import re

import policies.operator.lexicon_accounts as lexicon_accounts
import policies.operator.lexicon_colloquial as lexicon_colloquial
import policies.operator.lexicon_devices as lexicon_devices
import policies.operator.lexicon_phrases as lexicon_phrases
import policies.operator.lexicon_situations as lexicon_situations
import policies.operator.lexicon_words as lexicon_words


def _joined(concepts: str, more: str) -> str:
    """`concepts` ("name weight: stems" blocks) with the stems `more` gives ("name: stems" blocks) appended to the
    block of the same name; a name `concepts` lacks is an error."""
    extra: dict[str, list[str]] = {}
    for block in re.split(r"\n(?=\S)", more.strip()):
        name, _, stems = block.partition(":")
        extra.setdefault(name.strip(), []).extend(stems.split())
    blocks = re.split(r"\n(?=\S)", concepts.strip())
    names = {block.split()[0] for block in blocks}
    if unknown := sorted(set(extra) - names):
        raise ValueError(f"no concept {', '.join(unknown)} in lexicon_words.CONCEPTS")
    return "\n".join(" ".join([block, *extra.get(block.split()[0], [])]) for block in blocks)


MAX_CONCEPT_TAIL = 7

def _added(concepts: str, new: str) -> str:
    """`concepts` with the blocks of `new` ("name weight: stems") after them; a name `concepts` has is an error."""
    names = {block.split()[0] for block in re.split(r"\n(?=\S)", concepts.strip())}
    if taken := sorted(names & {block.split()[0] for block in re.split(r"\n(?=\S)", new.strip())}):
        raise ValueError(f"concept {', '.join(taken)} is in lexicon_words.CONCEPTS already")
    return concepts.rstrip() + "\n" + new.strip()


FILLER_WORDS: str = (
    lexicon_words.FILLER_WORDS + lexicon_situations.FILLER_WORDS + lexicon_devices.FILLER_WORDS
    + lexicon_accounts.FILLER_WORDS
)
_SITUATED: str = _added(
    _added(
        _joined(
            _joined(_joined(lexicon_words.CONCEPTS, lexicon_colloquial.CONCEPTS), lexicon_situations.CONCEPTS),
            lexicon_devices.CONCEPTS,
        ),
        lexicon_situations.NEW_CONCEPTS,
    ),
    lexicon_devices.NEW_CONCEPTS,
)
CONCEPTS: str = _joined(_added(_SITUATED, lexicon_accounts.NEW_CONCEPTS), lexicon_accounts.CONCEPTS)

# the concepts of `CONCEPTS` that name a place (a region or a city): an article for another region that matched one of
# them is what a question about that region is about (store.py)
PLACES = """astana almaty karaganda pavlodar abai akmola aktobe atyrau west_kz jambyl jetisu kostanay kyzylorda mangystau
north_kz turkistan ulytau east_kz shymkent"""

# concept: words (each a stem, matched like a concept stem) that only together name it (lexicon_phrases.py)
PHRASES = "\n".join([lexicon_phrases.PHRASES.rstrip(), lexicon_colloquial.PHRASES.strip(),
                     lexicon_situations.PHRASES.strip(), lexicon_devices.PHRASES.strip(),
                     lexicon_accounts.PHRASES.strip()])

# concept: concepts that name it when a question has all of them, anywhere ("деньги за те дни вернёте"), unless it has
# one of those after "|"; a combination may be a part of a later one ("перевёл деньги на счёт через каспи": the
# transfer to our account is a payment, and a payment through a bank named is ours); a part written "+concept" is
# required but keeps its own term
COMBINATIONS = """
hours: works weekday
hours: works night | internet line tv mobile maintenance
hours: works date | internet line tv mobile maintenance
hours: works daytime
hours: calls night | broken
foreign: tv repair | settop channel package
foreign: mobile repair | internet line gb calls sim roaming tariff
tariff: price internet | connect moving static ip pause rent buy router settop tv package roaming abroad mobile gb foreign tariff
tariff: speed +price pay | slow broken wifi change tariff connect moving static rent buy router mobile gb speedtest debt refund account ways
tariff: speed +price | slow broken wifi change tariff connect moving static rent buy router mobile gb
tariff: +speed pay | slow broken wifi change tariff connect moving static rent buy router mobile gb speedtest debt refund account ways
foreign: bank hours
foreign: tv buy | settop channel package
pay: transfer account_no
pay: transfer balance
pay: transfer internet
pay: transfer debt
pay: pay lender
credited: credited lender
credited: money arrive
autopay: autopay lender
debt: debt lender
foreign: lose bank
refund: return money
refund: return +day | router settop
refund: entitled +broken
refund: entitled +day
roaming: abroad sim
roaming: abroad_place sim
abroad: abroad_place +roaming
abroad: abroad_place +mobile
abroad: abroad_place +internet
abroad: abroad_place +calls
abroad: abroad_place +gb
archive: missed +activity
foreign: landline connect | debt block pay
foreign: landline price | debt block pay
foreign: landline change | debt block pay
foreign: landline calls | debt block pay
foreign: transfer +mobile | account_no
broken: weather +broken +router
broken: weather +broken +internet
broken: weather +broken +line
broken: weather +broken +tv
broken: weather +broken +settop
archive: missed +sport
archive: missed +tv
pause: connect pause
archive: missed +channel
refund: return pay
balance: money account_no
own: self router
advance: ahead +pay
foreign: penalty | terminate contract conclude
anynumber: mobile +free +calls +line | tariff roaming sim abroad gb internet landline bank lender foreign
pause: freeze +internet
broken: broken brand +internet
broken: broken brand +wifi
broken: broken brand +router
archive: pause +activity | internet
archive: archive missed
pause: freeze +tv
pause: freeze +contract
pause: freeze +service
history: +pay former | due debt autopay
login: password +account
login: password +app
enable: connect +roaming
enable: connect +abroad
enable: connect +abroad_place +sim
reissue: change contract +relative | tariff
reissue: change +contract +owner | tariff
free: extra pay
free: extra money
free: extra price
anynumber: foreign +support +calls
anynumber: mobile +support +calls | tariff roaming sim abroad gb internet
placement: where connect +router | address rent buy own price
placement: whereto connect +router | address rent buy own price
placement: whereto put +router | address rent buy own price
placement: where put +router | address rent buy own price
streaming: brand +slow
streaming: activity +slow
speedtest: shows +wifi | balance debt channel tv settop indicator app
speedtest: shows +speed | balance debt channel tv settop indicator app
speedtest: account +tariff +speedtest
static: +ip change
device: mobile +wifi | tariff roaming sim abroad gb calls
device: mobile +speedtest | roaming sim abroad gb calls
device: mobile +slow +streaming | roaming sim abroad gb calls
device: mobile +band | tariff roaming sim abroad gb calls
tariff: pay +speedtest
refund: reduce pay | debt
refund: reduce money | debt
block: +debt broken | refund
reconnect: pay +broken | refund day month week hours appeal fault entitled debt lender bank credited
"""

# concept: concepts an article that has it also has ("медленный" is about speed; a question that complains
# "тормозит" is not answered by an article that only gives speeds)
IMPLIES = """
slow: speed
signal: channel
reissue: death
tariff: cheap
own: connect
service: internet
allday: night
history: former
history: year
history: month
roaming: travel
roaming: works
"""

# Kazakh case endings an ASR writes apart from a number or a name ("1616 ға"): no term when alone (only the word
# itself: "тен" is also what "тенге" stems to)
DETACHED_ENDINGS = "ға ге қа ке ны ні ды ді ты ті нан нен дан ден тан тен ның нің дың дің тың тің"

# Kazakh auxiliary verbs (stems): after a converb ("-ып", "-іп", "-п") they are no term of their own
LIGHT_VERBS = "таста қал қой қою бер жібер кет көр шық отыр жат тұр жүр"

# words a phrase of `PHRASES` may have between two of its words ("ремонт на сети", "денег на счету")
PHRASE_GAP = "на в во по с со у к за о об от мне"

# concepts of a question about where something is (an office, a service centre): the place it names weighs 3x,
# so "офис в Таразе" is not answered by the Astana centre
LOCATED = "centre"

# concepts of an address asked for: a question that asks only where such a place is ("адрес сервисного центра", "где
# находится ваш офис") is not answered by an article that names the place in passing with no address ("вернуть
# в сервисный центр")
ADDRESS = "address"

# concepts of going somewhere (leaving for a while, moving house): in such a question the place gone to ("на дачу",
# "ауылға") is a circumstance, not what is asked about
MOTION = "travel moving abroad roaming"

# words that open a clause: conjunctions and (Russian, which puts them first) question words; the question's focus
# is its last clause that names something, the clauses before it are the caller's circumstances ("мы купили
# квартиру | как провести интернет"); Kazakh clauses also end at a finite verb (`RussianKazakh.ends_clause`)
# concepts of the caller's situation (family, children, a trip, a purchase, time): in a clause before the focus, and
# not in the article, they weigh `relevance.CONTEXT_FACTOR` ("сын играет в игры | вайфай медленный")
CIRCUMSTANCES = (
    "relative kids person activity buy home year new money apartment month day weekday date use job abroad_place"
)

CLAUSE_OPENERS = """
а но и или потому поэтому чтобы пока если хотя зато ещё тоже
как где сколько когда какой какая какое какие каких куда откуда почему зачем можно
хочу хотим хотел хотела хотели нужно надо нужен нужна подскажите скажите
ал бірақ енді сосын содан себебі сондықтан және әрі
"""

# a negator next to one of these makes "does not work" (`broken`): the verb is used up, the noun stays a term
NEGATORS = "не нет нету жоқ емес без"
# negators that negate only what follows them ("не работает"), never the word before ("связь не выходя из дома")
PREFIX_NEGATORS = "не без"
NEGATED_VERBS = "работ груз включ откры появ было был будет будут істе показ идут= идет= идёт= " + lexicon_colloquial.NEGATED_VERBS
NEGATED_NOUNS = "интернет инет сигнал связ сеть сети вайфай wifi канал арна"

# inflectional endings stripped from plain words (Russian, then Kazakh, folded), longest first, at most two
ENDINGS = """
    иями ями ами ого его ому ему ыми ими ых их ую юю ая яя ое ее ой ей ий ый ом ем ам ям ах ях ов ев ы и а я о е у ю
    ться тся ешь ете ите ишь ует уют ают яют ать ять ить еть ут ют ит ет ат ят ала ила ела али или ели ал ил ел
    ость ости ение ения ению ением ении
    лар лер дар дер тар тер нын нин дын дин тын тин ны ни ды ди ты ти на не га ге ка ке нда нде да де та те нан
    нен дан ден тан тен мен бен пен ымыз имиз ыныз иниз мыз миз ныз низ ым им ын ин сы си гы ги ган ген кан кен
    амын емин ймын йсыз у ып ип ады еди йды йди мын мин сыз сиз
"""
