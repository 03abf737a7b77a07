"""The operator lexicon's phrases (data only; see lexicon.py): word sequences that name a concept only together.

Each line is "concept: words", a word matched like a concept stem (a stem starts the word; "=" only the whole word);
a concept written "a+b" is both ("account+tariff: мой тариф"); "_" names none (a greeting: "добрый день"). Between
two words of a phrase up to `relevance.PHRASE_GAP_WORDS` prepositions or fillers may stand, none after a negator
("не заплатил" is a debt, "не могу оплатить" is not). lexicon.py joins these with lexicon_colloquial's and
lexicon_situations' phrases into `lexicon.PHRASES`.
"""

from __future__ import annotations

# concept: words (each a stem, matched like a concept stem) that only together name it
PHRASES = """
wifi: wi fi
maintenance: техническ работ
maintenance: техработ
moving: меня квартир
moving: смен квартир
moving: пәтер ауыстыр
tariff+change: тариф көш
room: ас үй
balance: қанша ақша қал
balance: ақша қалды
speedtest: провер скорост
speedtest: скорост провер
speedtest: жылдамд тексер
speedtest: тексер жылдамд
speedtest: замер скорост
foreign: жұмыс орн
foreign: торгов центр
foreign: сауда орталы
foreign: ақылды үй
foreign: умн дом
foreign: аренд квартир
foreign: сня квартир
foreign: снять квартир
foreign: пәтер жалға
foreign: получ паспорт
foreign: паспорт получ
foreign: оформ паспорт
foreign: халыққа қызмет
foreign: блок карт
foreign: заблок карт
foreign: карт заблок
foreign: карт блок
foreign: карт бұғат
foreign: бұғат карт
foreign: карточк заблок
foreign: заблок карточк
wifi: вай фай
wifi: вай фая
sim: сим карт
sim: sim карт
refund: қайта есепте
reissue: на другого
reboot: қайта қос
again: екінші рет
again: второй раз
again: второй рас
reboot: қайта жүкте
reboot: өшір қос
due: қай күн
maintenance: ремонт сет
maintenance: ремонт лини
maintenance: жөндеу жұмыс
maintenance: желі жөнд
maintenance: желіде жөнд
connect: стать абонент
price: по чем
travel: демалыс кет
pause: постав пауз
due: до какого
due: какого числ
debt: не заплатил
debt: не оплатил
debt: не заплачу
debt: не оплачу
debt: не платил
debt: забыл= заплатить=
debt: забыла= заплатить=
debt: забыл= оплатить=
debt: забыла= оплатить=
debt: төлемей қал
debt: төлей алма
placement+router: куда роутер постав
placement+router: куда постав роутер
placement+router: роутер куда постав
placement+router: куда роутер став
placement+router: куда став роутер
placement+router: роутер куда став
placement+router: куда роутер размест
placement+router: куда размест роутер
placement+router: роутер куда размест
placement+router: куда роутер повес
placement+router: куда повес роутер
placement+router: роутер куда повес
placement+router: где роутер постав
placement+router: где постав роутер
placement+router: роутер где постав
placement+router: где роутер став
placement+router: где став роутер
placement+router: роутер где став
placement+router: где роутер размест
placement+router: где размест роутер
placement+router: роутер где размест
placement+router: где роутер повес
placement+router: где повес роутер
placement+router: роутер где повес
reconnect+pay: после оплат
reconnect+pay: төлем жаса кейін
reduce: скинете=
allday+hours: круглосуточ
allday+hours: тәулік бойы
allday+hours: кругл сутк
anynumber: любого номер
anynumber: любой номер
anynumber: кез келген нөмір
support: біреу көтер
support: біреу жауап
support: кто то ответ
support: кто нибудь ответ
support: трубку возьм
extra: отдельн
extra: бөлек
free: доплач
free: доплат
connect: вам перейт
connect: вам перейд
connect: чего начат
connect+line: протян кабел
connect+line: протян провод
connect+line: кабел протян
connect+line: провод протян
connect+line: протяжк кабел
connect+line: протяжк провод
reissue: себя перевест
reissue: себя перевед
reissue: себя оформит
reissue: себя переписа
reissue: перевест себя
reissue: оформит себя
reissue: атына аудар
reissue: атыма аудар
reissue: атымызға аудар
reissue: маған аудар
reissue: атымызға көшір
reissue: передела договор
reissue: договор передела
pause: тоқтата тұр
pause: тоқтатып қой
pause: тоқтатып қою
freeze: қатырып қой
freeze: қатырып қою
pause: төлемеу үшін
pause: төлемей тұр
history: сколько платил
history: сколько заплатил
history: қанша төлегенім
history: төлегендерім
master: мастер вызв
master: вызв мастер
master: шебер шақыр
master: шеберді шақыр
keep+contract: договор остан
keep+contract: остан договор
keep+contract: договор тот же
keep+contract: тот же договор
keep+contract: договор прежн
keep+account_no: номер остан
keep+account_no: остан номер
moving: собой забр
moving: собой перетащ
moving: собой перенес
moving: собой взять
moving: перетащ интернет
moving: интернет перетащ
address+new: нов мест
refund: қайта сана
refund: ақша есепте
refund: не начисл
refund: верн деньг
refund: деньг верн
refund: возврат деньг
refund: ақша қайтар
refund: қайтар ақша
own: сво роутер
own: өз роутер
own: собствен роутер
password: құпия сөз
balance: ден остал
balance: остал ден
balance: ақша қалд
balance: ақша қалған
balance: қанша ақша
balance: қанша қал
pay+ways: как оплат
pay+ways: как заплат
pay+ways: қалай төле
pay+ways: чем оплат
pay+ways: как платит
foreign: ip телефон
foreign: айпи телефон
moving: смен адрес
moving: меня адрес
moving: мекенжай ауыстыр
ip: ip адрес
ip: айпи адрес
ip: ip мекенжай
due: қашанға дейін
due: қашан дейін
hours: до скольк
hours+works: часы работ
calls: қоңырау шал
pay: ақша сал
broken: то есть то нет
works: жұмыс істе
own: өзім роутер
account: подключ услуг
account: услуг подключ
account: қосылған қызмет
account: қызмет қосылған
terminate: бас тарт
due: қашан төле
due: когда оплат
due: когда плат
due: когда внос
connect: абонент бол
site: не выход дом
site: үйден шық
lose: карт жоғал
foreign: дела паспорт
foreign: паспорт дела
cheap: сам прост
signal: черн экран
signal: экран черн
signal: кара экран
signal: экран кара
foreign: паспорт алу
foreign: паспорт алам
foreign: паспорт алас
foreign: паспорт алс
foreign: паспорт алға
foreign: паспорт алды
foreign: паспорт алып
foreign: паспорт алат
foreign: паспорт алай
foreign: паспорт ауыстыр
foreign: паспорт жаса
foreign: куәлік алу
foreign: куәлік алам
foreign: куәлік алас
foreign: куәлік алс
foreign: куәлік алға
foreign: куәлік алды
foreign: куәлік алып
foreign: куәлік алат
foreign: куәлік алай
foreign: куәлік ауыстыр
foreign: куәлік жаса
weather: ауа райы
weather: күн= ашық
weather: ашық күн=
transfer: перев деньг
transfer: деньг перев
transfer: перев номер
transfer: скин деньг
transfer: ақша аудар
transfer: аудар ақша
transfer: ақша жібер
account+tariff: мой= тариф
account+tariff: моем= тариф
account+tariff: моего= тариф
account+tariff: моим= тариф
account+tariff: свой= тариф
account+tariff: своем= тариф
account+tariff: своего= тариф
account+tariff: своим= тариф
account+tariff: тариф мой=
account+tariff: тариф меня=
account+tariff: меня= тариф
account+tariff: каком= тариф
account+tariff: текущ тариф
account+tariff: нынешн тариф
account+tariff: тарифим
account+tariff: тарифтемин
account+tariff: тариф екен
account+tariff: тариф косылганым
works: жауап бер
works: принима звонк
works: звонк принима
works: қоңырау қабылда
daytime: түскі үзіліс
_: или= нет=
_: или= же= нет=
_: ма= жок па=
_: ме= жок па=
_: ба= жок па=
_: бе= жок па=
_: па= жок па=
_: пе= жок па=
_: қайырлы күн
_: қайырлы таң
_: қайырлы кеш
_: добр ден
_: добр вечер
_: добр утр
"""
