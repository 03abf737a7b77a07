"""Operator region resolver: all 20 regions, cities, inflections, Kazakh and Latin forms, old names,
false positives, Almaty clarification, explicit region-change requests."""

import pytest

from policies.operator.region_data import REGIONS
from policies.operator.regions import (
    AMBIGUOUS,
    NOT_FOUND,
    REJECTED,
    is_region_change_request,
    resolve_almaty_answer,
    resolve_region,
)

# (name form, city or old name) for each region
BY_REGION = {
    "KZ-10": ("Абайская область", "Семей"),
    "KZ-11": ("Акмолинская область", "Кокшетау"),
    "KZ-15": ("Актюбинская область", "Актобе"),
    "KZ-19": ("Алматинская область", "Конаев"),
    "KZ-23": ("Атырау облысы", "Гурьев"),
    "KZ-27": ("Западно-Казахстанская область", "Уральск"),
    "KZ-31": ("Жамбылская область", "Тараз"),
    "KZ-33": ("Жетісу облысы", "Талдыкорган"),
    "KZ-35": ("Карагандинская область", "Темиртау"),
    "KZ-39": ("Костанайская область", "Рудный"),
    "KZ-43": ("Кызылординская область", "Аральск"),
    "KZ-47": ("Мангистауская область", "Актау"),
    "KZ-55": ("Павлодарская область", "Экибастуз"),
    "KZ-59": ("Северо-Казахстанская область", "Петропавловск"),
    "KZ-61": ("Туркестанская область", "Кентау"),
    "KZ-62": ("Ұлытау облысы", "Жезказган"),
    "KZ-63": ("Восточно-Казахстанская область", "Усть-Каменогорск"),
    "KZ-71": ("Астана", "Нур-Султан"),
    "KZ-75": ("город Алматы", "Алматы қаласы"),
    "KZ-79": ("Шымкент", "Чимкент"),
}
FORMS = {
    "Караганды": "KZ-35",
    "в Караганде": "KZ-35",
    "Қарағанды облысы": "KZ-35",
    "Қарағандыдан": "KZ-35",
    "Karaganda": "KZ-35",
    "Qaraghandy": "KZ-35",
    "из Павлодара": "KZ-55",
    "я живу в Павлодаре": "KZ-55",
    "Shymkent": "KZ-79",
    "Целиноград": "KZ-71",
    "Акмолинск": "KZ-71",
    "Акмола": "KZ-11",  # today the region (Ақмола облысы); the city's old names are Целиноград and Акмолинск
    "ну я из акмолы": "KZ-11",
    "Макинск": "KZ-11",
    "из Атбасара": "KZ-11",
    "Бейнеу": "KZ-47",
    "Шемонаиха": "KZ-63",
    "усть ка": "KZ-63",
    "Сәтбаевтан": "KZ-62",
    "алма атинская область": "KZ-19",
    "Иссык": "KZ-19",
    "Есік": "KZ-19",
    "из Арыса": "KZ-61",
    "Гурьев": "KZ-23",
    "Шевченко": "KZ-47",
    "Жанаозен": "KZ-47",
    "Өскемен": "KZ-63",
    "Риддер": "KZ-63",
    "из Семея": "KZ-10",
    "Балхаш": "KZ-35",
    "Жезқазған": "KZ-62",
    "Сатпаев": "KZ-62",
    "Орал": "KZ-27",
    "Алматы облысы": "KZ-19",
    "Алматинская область": "KZ-19",
    "город Алматы": "KZ-75",
    "Алма-Ата": "KZ-75",
    "Almaty city": "KZ-75",
}
FALSE_POSITIVES = {
    "Казахстан": REJECTED,
    "улица Абая": None,
    "проспект Абая": None,
    # streets whose name alone would select a region ("Жамбыла" -> KZ-31, "Сатпаева" -> KZ-62, "Абай" -> KZ-10)
    "улица Жамбыла": REJECTED,
    "пр. Сатпаева": REJECTED,
    "на улице Абай": REJECTED,
    "Абай көшесі": REJECTED,
    "область": NOT_FOUND,
    "Москва": REJECTED,
    "Бишкек": REJECTED,
    "Ташкент": REJECTED,
    "семейный тариф": NOT_FOUND,
    "не знаю": NOT_FOUND,
}


def test_twenty_unique_iso_codes() -> None:
    codes = [r.code for r in REGIONS]
    assert len(codes) == 20 and len(set(codes)) == 20 and set(codes) == set(BY_REGION)


@pytest.mark.parametrize(("code", "forms"), BY_REGION.items())
def test_each_region_by_name_and_city(code: str, forms: tuple[str, str]) -> None:
    for text in forms:
        r = resolve_region(text)
        assert r.status == "selected" and r.region_code == code, text
        region = next(x for x in REGIONS if x.code == code)
        assert (r.name_ru, r.name_kk) == (region.name_ru, region.name_kk) and r.matched


@pytest.mark.parametrize(("text", "code"), FORMS.items())
def test_inflections_kazakh_latin_old_names(text: str, code: str) -> None:
    r = resolve_region(text)
    assert r.selected and r.region_code == code


@pytest.mark.parametrize(("text", "status"), FALSE_POSITIVES.items())
def test_false_positives_select_nothing(text: str, status: str | None) -> None:
    r = resolve_region(text)
    assert not r.selected and r.region_code == ""
    if status:
        assert r.status == status and r.reason


def test_street_rule_does_not_hide_a_named_region() -> None:
    assert resolve_region("Жамбыла").region_code == "KZ-31"  # the street case above is the rule, not luck
    assert resolve_region("проспект Абая, Караганда").region_code == "KZ-35"


def test_almaty_alone_is_ambiguous_then_resolved() -> None:
    for text in ("Алматы", "в Алматы", "Almaty", "Алматыдан"):
        r = resolve_region(text)
        assert r.status == AMBIGUOUS and r.almaty and not r.region_code, text
    assert resolve_almaty_answer("город").region_code == "KZ-75"
    assert resolve_almaty_answer("область").region_code == "KZ-19"
    assert resolve_almaty_answer("қала").region_code == "KZ-75"
    assert resolve_almaty_answer("облысы").region_code == "KZ-19"
    assert resolve_almaty_answer("Талгар").region_code == "KZ-19"
    assert resolve_almaty_answer("не знаю").status == AMBIGUOUS


def test_two_regions_named_is_ambiguous() -> None:
    r = resolve_region("Караганда или Павлодар")
    assert r.status == AMBIGUOUS and set(r.candidates) == {"KZ-35", "KZ-55"} and not r.region_code


@pytest.mark.parametrize(
    "text",
    [
        "смените регион на Павлодар",
        "смените, пожалуйста, регион",
        "другой регион",
        "басқа аймақ",
        "аймақты өзгерту",
        "поменяйте область",
        "change my region",
    ],
)
def test_explicit_region_change(text: str) -> None:
    assert is_region_change_request(text)


@pytest.mark.parametrize(
    "text",
    [
        "а в Павлодаре есть скидки?",
        "сколько стоит интернет в Караганде",
        "Павлодар",
        "Как поменять тариф в городе Павлодар?",  # a change verb, but the tariff is what changes
        "как изменить адрес подключения в городе Шымкент",
        "Шымкент қаласында тарифті өзгерту",
        "қалада тарифті өзгерту керек пе",
    ],
)
def test_not_a_region_change(text: str) -> None:
    assert not is_region_change_request(text)


@pytest.mark.parametrize("region", REGIONS, ids=lambda r: r.code)
def test_official_names_resolve_to_their_own_code(region) -> None:
    forms = [region.name_ru, region.name_kk, "в " + region.name_ru.replace("ая область", "ой области")]
    for text in forms:
        assert resolve_region(text).region_code == region.code, text
