"""How callers ask about their account and contract (data only; lexicon.py joins these onto its tables like
lexicon_situations'): when and how a bill is paid, a debt paid off, the balance, ending, reissuing or moving a
contract, a pause, the support's hours and a recalculation after an outage. Written class by class from the
misses of those topics in the dev and blind splits (issue 27 §1), each class filled from domain knowledge in
both languages well past the lines that showed it.

- `CONCEPTS`: blocks "name: stems" appended to the concept of that name (lexicon_words.CONCEPTS, or a
  `NEW_CONCEPTS` block of lexicon_situations: lexicon.py joins these last).
  - `debt`: a debt paid off ("погасил"; phrases: "долг закрыл", "қарызды жаптым"): still the debt, never a
    payment (the contract article's "погасите задолженность" would then answer every payment question).
  - `block`: unlinking a card ("отвязать автооплату"): the autopay switched off, as the article says
    "отключить".
  - `balance`: an overpayment ("переплата", "артығы"); `due`: a payment overdue ("просрочка").
  - `appeal`: a written request ("заявление на перерасчёт"). Kazakh "жазамын" (I write) is left out: a
    complaint written about a technician was then answered.
  - `moving`, `connect`, `reissue`, `contract`: more forms of moving house ("переберусь"), of laying the cable
    ("протянуть", "завести интернет", "қостырамыз"), of redoing the contract ("переделать договор") and Kazakh
    "келісім".
  - `month`: half a year ("на полгода"); `free`: a fee on top ("сверху берёте", "үстінен пайыз"); `date`: a
    holiday by name ("новогодние", and as phrases "новый год", "жаңа жыл"; never "новый" alone: a new address
    would be a date).
- `NEW_CONCEPTS`: concepts the other tables lack:
  - `advance`: a payment in advance ("аванс", "предоплата"), as the payment-due article says; `ahead` (weight
    0, no term alone): ahead of time ("наперёд", "заранее", "вперёд", "алдын ала", and its opposite "по
    факту"), which only with a payment is the advance (lexicon.COMBINATIONS: "заранее предупредить о переезде"
    stays the move's).
  - `penalty`: a fine or forfeit ("неустойка", "штраф", "айыппұл"): the contract article's "без штрафов", but
    only with ending or making a contract; any other fine is not ours (lexicon.COMBINATIONS: `foreign`).
  - `in_absence` (weight 0): doing it without coming in ("дистанционно", "не выходя из дома", "үйден шықпай"): no
    article says it, so it must not count against one. "удалённо" is not here: remote access is the static
    IP's.
- `PHRASES`: leaving the operator ("уйти от вас"), a contract moved to oneself or a relative ("на себя
  перевести", "атына ауыстыру"), ahead of time ("раньше времени", "раньше срока": no term), being in credit
  ("в плюсе"), the recalculation made by itself ("сами посчитаете", "өзі есептеле ме"), autopay in everyday
  words ("само снимает", "өзі алынып тұратын"), money taken to pay ("куда нести деньги", "ақша апарамын"), the
  monthly price ("айына қанша ақша": not the balance's "қанша ақша").
- `FILLER_WORDS`: the Kazakh "make it so" verb ("қылуға бола ма"), "удовольствие" in "почём это удовольствие",
  "досрочно".
"""

from __future__ import annotations

CONCEPTS = """
debt: погас погаш
block: отвяз отвяж
balance: перепла артық= артығы= артығын=
due: просроч
appeal: заявлени заявлен
moving: перебер перебрал перебрат
connect: қостыр протянуть= протянете= протянут= тянуть= тянете= завести= заведите= заведем= заведём=
contract: келісім келісімді= келісімнен= келісімге=
month: полгода= полгод
reissue: переделать=
free: сверху= үстінен=
date: новогодн рождеств
"""

NEW_CONCEPTS = """
advance 1: аванс предоплат
ahead 0: наперед заране заран вперед= вперёд=
penalty 1: неустойк штраф айыппұл айып=
in_absence 0: дистанционн
"""

PHRASES = """
ahead: по= факт
_: раньш врем
debt: закры долг
debt: долг закры
debt: закры задолжен
debt: задолжен закры
debt: қарыз жап
debt: қарызды жап
pay: нест деньг
pay: деньг нест
pay: занест деньг
pay: ақша апар
pay: ақшаны апар
_: раньш срок
price: айына қанша ақша
price: айына канша ақша
date: нов год
date: жаңа жыл
ahead: алдын ала
ahead: алдын= ала
reissue: на= себя= перевест
reissue: перевест на= себя=
reissue: на= меня= перевест
reissue: перевест на= меня=
reissue: на= себя= переписа
reissue: атына= ауыстыр
reissue: атыма= ауыстыр
reissue: атына= көшір
terminate: уйт от= вас=
terminate: уйд от= вас=
terminate: от= вас= уйт
terminate: от= вас= уйд
in_absence: не= выходя= дом
in_absence: не= приходя=
in_absence: үйден шықпай
in_absence: келмей= ақ
balance: в= плюс
balance: в= плюсе=
refund: сами= посчит
refund: само= посчит
refund: сам= посчит
refund: өзі есепте
autopay: само= снима
autopay: сами= снима
autopay: сам= снима
autopay: өзі алын
autopay: өзі шешіл
autopay: өзі кет
autopay: өзі түс
"""

FILLER_WORDS = """
қылуға қылу қылып қылсам қылсаңыз удовольствие досрочно
"""
