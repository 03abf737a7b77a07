"""How callers in Kazakhstan say the operator's topics on the phone (data only; lexicon.py joins these tables onto
its own and documents the format): colloquial and slang words, loanwords, short forms, the ASR's usual
one-letter misspellings ("интернед", "преставка", "даговор"), Kazakh colloquial forms and Russian roots inside
Kazakh sentences. Written from domain knowledge, concept by concept and article by article (issue 27 §1).

- `CONCEPTS`: blocks "name: stems", the stems appended to the concept of that name in lexicon_words.CONCEPTS (its
  weight is the one there; a name that is not there is an error at import). A stem is a prefix (at most
  `MAX_CONCEPT_TAIL` letters more), so every stem here was checked against the Russian dictionary for the
  common words it would also start; one that starts unrelated words is longer, or whole ("="), or a lemma
  written whole ("накрыться=" is "накрылся", not "накрыть на стол").
- `PHRASES`: lines "name: words", appended to lexicon.PHRASES: a word that is the concept only with another
  ("затащить интернет", "перетащить интернет", "тв бокс"; "организовать" alone is no connection).
- `NEGATED_VERBS`: colloquial verbs that say "does not work" after a negator ("не пашет", "не фурычит").
"""

from __future__ import annotations

CONCEPTS = """
internet: домашк интернед интерент интренет интенет интрнет интэрнет интырнэт инэт оптоволок gpon adsl гпон
wifi: вафай вайфэй вифай уайфай
router: бағыттауыш роутор роудер раутор роутэр раутэр мадем модэм тплинк tplink кинетик keenetic zyxel зиксел длинк dlink репитер ретранслятор
terminal: onu= онт=
price: расценк ценник обойтись= құны= құнын= құнымен= қаншадан= қаншаға=
cheap: недорог копеечн
speed: скарост шустр мбс= мегов= скорос
slow: черепах подвис буферизац фриз пинг= пинга= пингом= пингу= пинги= лагта ақырын тежел ақсап тормаз
connect: прицепить= подклуч падключ подлюч патключ подруб подцеп коннект законнект затащить= прокинуть= проложить=
  прокладк протягивать= заявочк жалғат
enable: врубить= разблоч
master: установщик монтер
pay: абонентк абонк рассчитаться= аплат аплач пополни пополня пополнен квитанц абанплат
app: прилажени приложух приложк преложени
account: лк= учетк профайл
money: деньж қаржы
balance: боланс
due: дедлайн
autopay: автосписан автооплат автопополн
remind: уведомлен оповещ
debt: задолж должник минусе= төлемед төлемесе
block: заблоч атключ ажырат
broken: сдох накрыться= вырубиться= отрубиться= отрубилс отрубилось= отрубилась= исчез барахл прерыва обрыв дисконнект слома полома сгоре глюк=
  порвал порван оборвал оборван үзіл лег= легло= тоқтап сөніп сөнді= сөнген сөнеді= атключ ажырат құлап құлады= ақаулы неполад неисправн
indicator: светодиод индекатор жыпылд лампачк
reboot: ребут рестарт перизагру пирезагру
refund: компенс пересчет переращет
return: тапсыр=
moving: переселит көшкел көшт көшпек көшей көшер
line: шнур сым= сымы= сымды= сымын= сыммен=
tv: тилевиз телевизион айпитив iptv твшк тиви= тэлевиз тиливиз
channel: телепрограмм телеканал
sport: матч хокке
settop: преставк пристафк пристовк пиставк ресивер тюнер декодер
signal: хдми
update: апдейт прошивк перепрошив
code: пинкод
mobile: мобилк сотик
gb: безлим анлим гиги=
calls: звонда
roaming: роминг руминг
abroad: загранк
password: password пассворд пороль= пороля= кілтсөз
settings: налад конфигур ретте
login: авториз
change: переключ апгрейд даунгрейд
weak: добивает= добивают= тартпай әлсіз
buy: прикуп
rent: напрокат
contract: даговор келісім дагавор
terminate: отказываться= растарг
documents: иин= доверенност сенімхат удастоверен
apartment: хата= хату= хате= хаты= хатой= трешк трёшк двушк однушк
home: коттедж домашк
support: саппорт консультант хотлайн
centre: филиал представительств
static: статик выделенн
camera: видеокам видеорегистр
pause: мұздат
month: помесячн ежемесячн
history: выписк детализац
repair: отремонт чинить=
free: халяв ақысыз
discount: акция= скидон кэшбэк кешбэк кешбек кэшбек
ip: ипишник
sim: сим= esim симочк
weak: әрең=
account_no: есепшот
account: парақша
package: топтама набор=
refund: вычесть= шегер
reissue: атында= атынан= атымда= атымызға= атындағы= атымызда=
login: заходить= кіргенде= кірген=
kostanay: костанае= костаная= костанаю= кустанае=
speed: сотка= сотку= сотки= соткой=
change: вместо=
travel: вахтовик рейс= рейсе= рейсы= әскер месторожден
job: бухгалтер
relative: балам= балама= баламды= баламмен=
activity: видео= видеолар видеосы видосы ролик
speed: күштірек
ways: наличк
code: комбинац
person: сосед
relative: папа= папы= папе= папу= папой= внук внучк дочк родител родне= родни= родню= родня= родней=
activity: учеб учёб
home: ауыл аул= аула= ауле= аулу= село= селе= деревн
apartment: жатақхана общежити жилье= жилья= жилью=
slow: черепаш
travel: уматыв
block: өшік
broken: өшік
service: опци
year: биыл
weak: әрең
sms: эсэмэс эсемес есемес
abroad: казань= казани= казане= казанью=
"""

PHRASES = """
wifi: вай фа
wifi: уай фа
wifi: вай фи
wifi: ви фи
wifi: точк доступ
router: усилител сигнал
router: tp link
router: тп линк
router: d link
router: д линк
price: по деньг
price: скольк берет
price: скольк берут
price: скольк возьм
cheap: қымбат емес
cheap: не= дорог
slow: долго груз
slow: туго груз
slow: долго загруж
slow: ұзақ ашыл
slow: ұзақ жүкт
connect+internet: затащ интернет
connect+internet: затащ инет
connect+internet: затащ оптик
connect+internet: организ интернет
connect+internet: организ инет
connect+internet: интернет организ
connect+internet: инет организ
connect+internet: установ интернет
connect+internet: установ инет
connect+internet: интернет установ
connect+internet: инет установ
connect+internet: затян интернет
connect+internet: затян инет
connect+internet: затян оптик
connect+internet: подвест интернет
connect+internet: подвед интернет
connect+internet: подвест инет
connect+internet: подвед инет
connect+internet: интернет өткіз
connect+line: затян кабел
connect+internet: интернет әкел
connect: перейт вам
connect: перейд вам
connect+line: кабель өткіз
connect+wifi: организ вайфай
connect+wifi: установ вайфай
connect+wifi: вайфай установ
connect+tv: организ тв=
connect+tv: установ тв=
connect+tv: организ телевид
connect+settop: установ приставк
enable+internet: верн интернет
enable+internet: верн инет
enable+internet: интернет верн
internet+broken: проблем интернет
internet+broken: проблем инет
internet+broken: интернет проблем
line+broken: проблем связ
wifi+broken: проблем вайфай
pay: полож деньг
pay: деньг полож
pay: полож счет
pay: полож баланс
pay: брос деньг
pay: брос счет
pay: баланс толтыр
pay: шот толтыр
balance: скольк счет
balance: шот қанша
balance: қанша шот
due: последн день=
due: последн числ
due: крайн день=
due: крайн дня=
due: последн дня=
due: соңғы күн
due: нешесіне дейін
due: нешесіне шейін
due: қашанға шейін
autopay+bank: привяз карт
autopay+bank: карт привяз
autopay+bank: привязк карт
remind: еске сал
refund: деньг назад
moving: перетащ интернет
moving: перетащ инет
moving: перетащ договор
moving: перетащ лини
moving: перетащ адрес
moving: перекин интернет
moving: перекин инет
moving: адрес ауыстыр
moving: адрес смен
moving: помен адрес
address: мекен жай
broken: жұмыс жасамай
works: жұмыс жаса
broken: істен шық
internet+broken: интернет= кетіп
internet+broken: интернет= кетті
internet+broken: инет= кетіп
internet+broken: инет= кетті
line+broken: байланыс= кетіп
line+broken: байланыс= кетті
wifi+broken: вайфай= кетіп
wifi+broken: вайфай= кетті
reboot: выключ включ
reboot: выключ розетк
reboot: выдерн розетк
reboot: розетк ажырат
maintenance: ремонтн работ
settop: тв бокс
settop: tv бокс
settop: tv box
settop: смарт бокс
code: пин код
abroad: шет ел
abroad: за бугор
abroad: за рубеж
password: кілт сөз
weak: не= тянет
weak: не= тянут
tariff+change: тариф өту
tariff+change: тариф өткім
tariff+change: тариф өтей
terminate: уйт вас
terminate: уйд вас
terminate: отключ насовсем
terminate: насовсем отключ
terminate: шарт жаб
terminate: біржола өшір
terminate: өшір біржола
terminate: біржола тоқтат
support: кол центр
support: горяч лини
support: байланыс орталы
hours+works: режим работ
hours+works: жұмыс уақыт
hours: нешеге дейін
hours: нешеге шейін
centre: салон связ
ip: ай= пи= адрес
ip: ай пи=
speedtest: спид тест
speedtest: speed test
moving: қоныс аудар
connect+internet: интернет кіргіз
connect+internet: кіргіз интернет
broken: өліп жат
internet+broken: интернет= өлді=
login: попаст кабинет
support: шестнадцат шестнадцат
support: тысяч шестьсот шестнадцат
support: он= алты он= алты
terminal: коробк оптик
job: на работе=
_: до= сих= пор=
foreign: какому= каналу=
foreign: какой= канал=
foreign: қай= арнада=
foreign: қай= арнадан=
credited: ақша бірден кел
line: по= провод
wifi: по= воздух
moving: интернет утащ
moving: утащ интернет
moving: интернет перетащ
moving: меня жиль
moving: смен жиль
terminate: прекрат польз
static+ip: внешн адрес
static+ip: внешн ip
static+ip: внешн айпи
static+ip: фиксирован адрес
static+ip: фиксирован ip
static+ip: фиксирован айпи
credited: ақша қашан кел
_: никого= не= будет=
_: никого= не= будут=
_: никто= не= будет=
job: ночн смен
job: на смене=
job: смена= до=
change+speed: повыш скорост
change+speed: повыс скорост
change+speed: скорост повыш
change+speed: увелич скорост
reissue: ауыстырып жаз
signal: эйч ди эм ай
free: деньг берет
free: деньг берут
free: берет деньг
free: берут деньг
contract+conclude: келісімшарт жаса
rent: уақытша пайдалан
pay: ақша сал
pay: ақшаны сал
internet+connect: интернет әкел
internet+connect: интернет кіргіз
internet+connect: инет кіргіз
autopay: сами снима
autopay: сам снима
autopay: сами списыва
autopay: сами уход
autopay: сами уйд
autopay: өзі түс
contract+conclude: шарт жаса
contract+conclude: договор жаса
north_kz: солтүстік қазақстан
east_kz: шығыс қазақстан
west_kz: батыс қазақстан
_: хабарласып тұрмын
_: хабарласып отырмын
_: қоңырау шалып тұрмын
_: қоңырау шалып отырмын
"""

NEGATED_VERBS = "пашет пашут фурыч робит функционир загруж"
