"""The 20 regions of Kazakhstan served by the operator policy: ISO 3166-2:KZ code, names, and spoken aliases.

Aliases are written in *folded* form (see `text.fold`: lower case, Kazakh letters folded, hyphens as spaces).
`*` stands for an inflection ending of up to `SUFFIX_MAX` letters ("караганд*" covers Караганды, Караганде,
Қарағандыдан); `re:` starts a raw regular expression for forms where a free ending would catch other words
("семей" must not match "семейный"). Each region lists its Russian and Kazakh names, Latin transliterations,
old names and their spellings, standard abbreviations ("ВКО", "СҚО"), references such as "столица"/"елорда"
and "южная столица", and its administrative centre and large towns; `REGIONS` adds its districts, district
centres and villages (`region_districts.DISTRICT_ALIASES`). A multi-word alias's "обл*" takes any ending
("Алматы облысынан", "облысындағы"). "Алматы" alone is deliberately absent: it is ambiguous (city or region)
and handled by the resolver.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from policies.operator.region_districts import DISTRICT_ALIASES

SUFFIX_MAX = 5


@dataclass(frozen=True)
class Region:
    code: str  # ISO 3166-2:KZ
    name_ru: str
    name_kk: str
    aliases: tuple[str, ...]

    def name(self, language: str) -> str:
        return self.name_kk if language == "kk" else self.name_ru


_OWN: tuple[Region, ...] = (
    Region(
        "KZ-10",
        "Абайская область",
        "Абай облысы",
        (
            "абайск*", "абай обл*", "обл* абай", "re:абай", "abai*", "abay*",
            "re:семе(й|я|е|ю|ем|йде|йден|йге|йдин)", "семипалатинск*", "semey*", "semei*", "semipalatinsk*",
            "курчатов*", "аягоз*", "аягуз*",
        ),
    ),
    Region(
        "KZ-11",
        "Акмолинская область",
        "Ақмола облысы",
        (
            "макинск*", "атбасар*", "ерейментау*", "зеренд*", "державинск*", "косшы*", "степняк*", "акмола*", "re:акмол(е|ы|у|ой)",
            "re:акмолинск(ая|ой|ую|ий|ом|ого)\\s+обл\\w*",
            "re:акмолинск(ая|ой|ую)",
            "акмола обл*",
            "акмолинск* обл*",
            "akmola region",
            "akmola oblys*",
            "aqmola*",
            "кокшетау*",
            "кокчетав*",
            "kokshetau*",
            "степногорск*",
            "щучинск*",
            "бурабай*",

        ),
    ),
    Region(
        "KZ-15",
        "Актюбинская область",
        "Ақтөбе облысы",
        (
            "шалкар*", "эмба*",
            "актобе*", "актюбинск*", "aktobe*", "aqtobe*", "aktyubinsk*", "хромтау*", "кандыагаш*", "актюбе*",
            "aktube*",
        ),
    ),
    Region(
        "KZ-19",
        "Алматинская область",
        "Алматы облысы",
        (
            "иссык*", "re:есик(|а|е|у|ом|те|тен|ке)", "узынагаш*", "шелек*", "чилик*", "шилик*", "кеген*", "нарынкол*", "алма атинск* обл*", "re:алма атинск(ая|ой|ую)",
            "алматинск* обл*", "re:алматинск(ая|ой|ую)", "алматы обл*", "обл* алматы*", "almaty region",
            "almaty oblys*", "almaty oblast*", "region almaty", "конаев*", "konaev*", "qonaev*", "капчагай*", "капшагай*",
            "kapchagay*", "талгар*", "каскелен*", "алмаатинск* обл*", "re:алмаатинск(ая|ой|ую)",
        ),
    ),
    Region(
        "KZ-23",
        "Атырауская область",
        "Атырау облысы",
        (
            "макат*", "индер*",
            "атырау*",
            "atyrau*",
            "гурьев*",
            "guryev*",
            "кульсары*",
            "кулсары*",

        ),
    ),
    Region(
        "KZ-27",
        "Западно-Казахстанская область",
        "Батыс Қазақстан облысы",
        (
            "чингирлау*", "жангала*",
            "западно казахстанск*", "западн* казахстан*", "батыс казакстан*", "west kazakhstan*", "уральск*",
            "uralsk*", "re:орал(да|дан|га|дын)?", "oral", "аксай*", "re:акса(я|е|ю|ем)", "зко", "бко",
        ),
    ),
    Region(
        "KZ-31",
        "Жамбылская область",
        "Жамбыл облысы",
        (
            "кордай*", "re:мерке(|де|ден|ге|нин)",
            "жамбыл*", "джамбул*", "zhambyl*", "jambyl*", "тараз*", "taraz*", "аулие ата*", "жанатас*", "каратау*",
            "аулиеата*", "джамбыл*",
        ),
    ),
    Region(
        "KZ-33",
        "Область Жетісу",
        "Жетісу облысы",
        (
            "жетису*", "жетысу*", "zhetysu*", "jetisu*", "zhetisu*", "талдыкорган*", "талдыкурган*", "taldykorgan*",
            "текели*", "жаркент*", "джетысу*", "талды корган*", "талды курган*",
        ),
    ),
    Region(
        "KZ-35",
        "Карагандинская область",
        "Қарағанды облысы",
        (
            "караганд*", "карагандинск*", "karagand*", "qaragand*", "qaraghand*", "темиртау*", "temirtau*",
            "балхаш*", "re:балкаш(?!ин)\\w{0,5}", "balkhash*", "шахтинск*", "приозерск*", "сарань*", "re:саран(и|ью|да|дан|га|ға)",
        ),
    ),
    Region(
        "KZ-39",
        "Костанайская область",
        "Қостанай облысы",
        (
            "костанай*", "кустанай*", "kostanay*", "qostanay*", "kustanai*", "re:рудн(ый|ом|ого|ому|ым|ыйда|ыйдан)",
            "re:(ко|ку)стана(е|я|ю|ем)", "rudny*", "лисаковск*", "аркалык*", "житикар*",
        ),
    ),
    Region(
        "KZ-43",
        "Кызылординская область",
        "Қызылорда облысы",
        (
            "жанакорган*", "шиели*",
            "кызылорд*", "кызылординск*", "кызыл орд*", "kyzylorda*", "qyzylorda*", "аральск*", "казалинск*",
            "перовск*", "кзыл орд*", "кзылорд*", "кзыл ординск*", "байконур*", "ленинск*",
        ),
    ),
    Region(
        "KZ-47",
        "Мангистауская область",
        "Маңғыстау облысы",
        (
            "бейнеу*",
            "мангист*", "мангистауск*", "мангыстауск*", "мангыст*", "mangystau*", "mangistau*", "актау*", "aktau*",
            "aqtau*", "жанаозен*", "жанаузен*", "zhanaozen*", "re:шевченко", "форт шевченко*", "мангышлак*",
            "мангистау обл*",
        ),
    ),
    Region(
        "KZ-55",
        "Павлодарская область",
        "Павлодар облысы",
        (
            "павлодар*", "pavlodar*", "экибастуз*", "екибастуз*", "ekibastuz*", "re:аксу(да|дан|га)?",
            "re:ермак(е|а|у)?",
        ),
    ),
    Region(
        "KZ-59",
        "Северо-Казахстанская область",
        "Солтүстік Қазақстан облысы",
        (
            "булаево*", "мамлют*", "тайынша*", "сергеевк*",
            "северо казахстанск*", "северн* казахстан*", "солтустик казакстан*", "north kazakhstan*", "петропавл*", "петропавловск*",
            "petropavl*", "кызылжар*", "ско",
        ),
    ),
    Region(
        "KZ-61",
        "Туркестанская область",
        "Түркістан облысы",
        (
            "шардар*", "re:арыс(|ка|ке|та|те|а|е)", "ленгер*",
            "туркестан*", "туркистан*", "turkistan*", "turkestan*", "южно казахстанск*", "кентау*", "kentau*",
            "сарыагаш*", "жетысай*", "юко", "око", "шымкентск* обл*", "чимкентск* обл*", "онтустик казакстан*",
        ),
    ),
    Region(
        "KZ-62",
        "Область Ұлытау",
        "Ұлытау облысы",
        (
            "сатбаев*",
            "улытау*", "ulytau*", "жезказган*", "джезказган*", "zhezkazgan*", "сатпаев*", "satpayev*", "каражал*",
        ),
    ),
    Region(
        "KZ-63",
        "Восточно-Казахстанская область",
        "Шығыс Қазақстан облысы",
        (
            "шемонаих*", "зайсан*", "усть ка",
            "восточно казахстанск*", "восточн* казахстан*", "шыгыс казакстан*", "east kazakhstan*",
            "усть каменогорск*", "ust kamenogorsk*", "оскемен*", "oskemen*", "риддер*", "ridder*", "лениногорск*",
            "зыряновск*", "вко", "шко", "усть кам*", "устькаменогорск*",
        ),
    ),
    Region(
        "KZ-71",
        "город Астана",
        "Астана қаласы",
        (
            "астан*", "astana*", "нур султан*", "нурсултан*", "nur sultan*", "nursultan*", "целиноград*",
            "tselinograd*", "re:акмолинск(а|е|у|ом)?", "re:столиц(а|е|у|ы|ей)", "елорд*",
            "re:главн\\w* город\\w*", "бас кала*", "re:лев\\w* берег\\w*", "сол жагалау*", "re:сарыаркинск\\w*",
            "re:есильск\\w* район\\w*", "сарыарка аудан*", "есил аудан*",
        ),
    ),
    Region(
        "KZ-75",
        "город Алматы",
        "Алматы қаласы",
        (
            "город* алматы*", "г алматы*", "алматы каласы*", "алматы кала*", "алматы город*", "almaty city",
            "city of almaty", "алма ата*", "alma ata*", "алма аты*", "алмааты*", "re:южн\\w* столиц\\w*",
            "re:(бывш|стар|прежн)\\w* столиц\\w*", "онтустик астана*", "re:медеуск\\w*", "re:бостандыкск\\w*",
            "re:алмалинск\\w*", "re:турксибск\\w*", "re:наурызбайск\\w*", "re:ауэзовск\\w* район\\w*",
            "медеу аудан*", "бостандык аудан*", "алмалы аудан*", "турксиб аудан*", "ауэзов аудан*", "наурызбай аудан*",
            "ауезов аудан*", "re:ауезовск\\w* район\\w*",
        ),
    ),
    Region(
        "KZ-79",
        "город Шымкент",
        "Шымкент қаласы",
        (
            "re:аль\\s*фарабийск\\w*", "аль фараби аудан*", "re:енбекшинск\\w* район\\w*", "re:каратауск\\w* район\\w*", "re:туранск\\w* район\\w*",
            "шымкент*", "чимкент*", "shymkent*", "chimkent*",
        ),
    ),
)  # fmt: skip

# with their districts, district centres and villages (`region_districts`)
REGIONS: tuple[Region, ...] = tuple(
    replace(r, aliases=r.aliases + DISTRICT_ALIASES.get(r.code, ())) for r in _OWN
)
REGIONS_BY_CODE: dict[str, Region] = {r.code: r for r in REGIONS}
# Each region's own aliases (its names, old names and large towns), without its districts and villages
OWN_ALIASES: dict[str, tuple[str, ...]] = {r.code: r.aliases for r in _OWN}
ALMATY_CITY = "KZ-75"
ALMATY_REGION = "KZ-19"
