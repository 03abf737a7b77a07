"""How callers describe their devices and what they see on them (data only; lexicon.py joins these tables onto its
own like lexicon_situations'): the Wi-Fi that stalls, the TV's recorded programmes, the set-top box's
activation code, the static IP. Written class by class from the misses of the device topics (no internet, slow Wi-Fi,
the router's setup and rent, TV packages and setup, static IP; issue 27 §1), each class filled from domain
knowledge past the lines that showed it.

- `CONCEPTS`: blocks "name: stems" appended to the concept of that name (lexicon_words.CONCEPTS).
  - `slow`: a video that stalls or barely loads ("прогружается", "буферизует", "әрең").
  - no "джи": "пять джи" is as often the mobile 5G, which is not ours, as the Wi-Fi's 5 GHz band.
  - `activity`: a series' episode ("серию"): with missed, the archive (lexicon.COMBINATIONS). Not "передача" or
    "хабарлар": the TV articles name them ("архив передач"), and "какие фильмы идут" would be answered.
  - `code`: Kazakh forms of "код" ("кодты").
  - `static`, `ip`: a fixed address ("фиксированный"), "айп" cut short; an IP that changes is the static IP
    (lexicon.COMBINATIONS "static: +ip change").
  - `name`: what a network is called ("называлась", "назвали").
- `NEW_CONCEPTS`: `remote`, access from outside ("удалённо", "сырттан"): the static IP's use.
- `PHRASES`: a video that stops ("тоқтап қала", "кружочек крутится", "еле открывается"; not "еле" alone: "сотовая
  связь еле ловит" is no Wi-Fi) is slow; digits the box asks to enter ("цифры просит ввести", "сандар сұрап тұр")
  are the activation code; rewinding ("артқа айналдыру", "назад отмотать") is the archive; "имя поставить" a
  network's name, not a connection.
- `FILLER_WORDS`: "обязательно", "міндетті": whether something is required carries no topic ("свой роутер можно
  или обязательно ваш").

A laptop or a computer is deliberately no concept: the articles that name one (the static IP, the slow Wi-Fi)
then answered "ноутбук сломался" and "ноутбук купить".
"""

from __future__ import annotations

CONCEPTS = """
slow: прогруж буфериз әрең
activity: сери= серию= серия= серии=
code: кодты= кодтар кодтарды=
static: фиксир
ip: айп=
name: назыв назвал
"""

# concepts lexicon_words lacks ("name weight: stems", its format; see the module docstring)
NEW_CONCEPTS = """
remote 1: удален удалён удаленн удалённ сырттан= қашықтан
"""

PHRASES = """
slow: тоқтап қал
slow: кружоч крут
code: цифр ввест
code: цифр вбит
code: цифр прос
code: ввест цифр
code: сандар сұра
code: сан сұра
code: сандар енгіз
archive: артқа айналдыр
archive: назад отмот
slow: еле откр
slow: еле работ
name: имя постав
"""

FILLER_WORDS = """
обязательно міндетті
"""
