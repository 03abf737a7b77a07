"""Freight, the wrong person answers (issue 27, class 6): the vendor's driver, a relative or an employee picks up.
The seed pitches only once the right person is confirmed, so Ori never pitches to them: she asks for the vendor
or when to call back; a time given or "he'll call you" closes politely (`callback`); a hand-over ("ek minute
dete hain") is waited for, and the vendor coming on the line then gets the pitch. Phrasings are STT-like: no
punctuation, fillers, code switching, negation."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.freight import lines as L
from policies.freight.intents import classify
from tests.support.freight import LOAD, cli_call, play, started

# Someone else, no time and no hand-over: ask for the vendor or when to call.
ASK = [
    "main unka driver bol raha hoon",
    "मैं उनका ड्राइवर बोल रहा हूं",
    "वो घर पर नहीं हैं",
    "this is his son",
    "nahi main unka beta hoon",
    "मैं उनकी वाइफ बोल रही हूं",
    "ji main munshi hoon office se",
    "सेठ जी अभी बाहर गए हुए हैं",
    "he is not available right now this is the driver",
    "umm wo abhi yahan nahi hai",
    "हम उनके भाई बोल रहे हैं",
    "i am his brother he is out",
    "mahesh ji to site pe gaye hain main helper hoon",
    "नहीं जी मैं स्टाफ से बोल रहा हूं",
    "papa ghar pe nahi hain",
    "वो नहा रहे हैं मैं उनकी बेटी हूं",
    "haan ji ye unka number hai par wo gaadi lekar gaye hain",
    "i am the manager sir is not here",
    "main khalasi hoon malik abhi nahi hain",
    "वो तो सो रहे हैं",
    "driver speaking",
    "wo abhi busy hain",
    "हां जी मैं उनका मुनीम हूं बोलिए",
    "no this is his wife speaking",
    "hello ji main unka ladka hoon",
    "munshi ji bol raha hoon",
    "haan ji unka phone mere paas hai",
    "uncle ghar pe nahi hai",
    "ji wo to bahar gaye hain",
    "sir abhi site pe hain",
    "he is out of station",
    "मालिक अभी नहीं हैं",
    # someone who names himself otherwise, says whose he is, or calls from the vendor's place
    "main suresh bol raha hoon mahesh ka partner",
    "haan ji mahesh ke ghar se bol rahe hain",
    "this is vikram speaking mahesh's brother",
    "mahesh bhaiya to dukaan pe hain main chhota bhai bol raha hoon",
    "mahesh bhai ka phone hai main raju bol raha hoon",
    "मैं सुरेश बोल रहा हूं महेश जी के यहां से",
    "mera naam dinesh hai",
    "haan ji main ramesh bol raha hoon",
    "ji main unka dost bol raha hoon",
    "khamma ghani sa mahesh ji ri beti bolu hu",  # Marwari, Punjabi, a transport company's staff
    "haanji main mahesh ji da munda haan",
    "sat sri akal ji main gurpreet bol reya haan mahesh paaji da driver",
    "ji main mahesh roadlines se pinky bol rahi hoon reception se",
    "speaking this is anil from sharma transport mahesh is on leave today",
    "good morning mahesh transport company this is the dispatcher",
    # Bhojpuri and Rajasthani: gone out, with when he comes back; his wife, his son
    "ha ho bhaiya ta bahar gail baadan",
    "hum unkar mehraru bol rahal baani",
    "hum okar laika baani",
    "hukum main unro munim hoon",
]
# A hand-over: wait on the line.
HOLD = [
    "ek minute dete hain",
    "एक मिनट होल्ड कीजिए देता हूं",
    "ruko bulata hoon unko",
    "main driver hoon ek minute seth ji ko phone deta hoon",
    "hold on i will give him the phone",
    "haan ji line pe rahiye bula raha hoon",
    "अभी देता हूं उनको",
    "one minute let me call him",
    "ek second dijiye unko bulati hoon",
    "hold kijiye",
]
# A time to call back, or "he'll call you": close politely, disposition callback.
LATER = [
    "वो शाम को आएंगे तब कॉल कीजिए",
    "main unka beta hoon wo kal subah milenge",
    "he will call you back",
    "wo aapko call kar lenge",
    "मैं उनको बता दूंगा वो फोन कर लेंगे",
    "papa ek ghante baad aayenge",
    "sir is in a meeting call after two hours",
    "वो दोपहर तक लौटेंगे",
    "wo shaam tak aa jayenge",
    "papa to shaadi mein gaye hain kal aayenge",
    "i am his wife he will call you later",
    "seth ji to ajmer gya kal aasi",  # Rajasthani: gone to Ajmer, back tomorrow
]
# The vendor himself, and a wrong number: as before.
RIGHT_PERSON = ["haan ji main mahesh bol raha hoon boliye", "हां जी बोलिए", "main hi bol raha hoon", "haan ji mahesh ji hi hoon",
                "yes speaking", "हां मैं ही हूं", "main mahes bol raha hoon", "this is mahesh speaking",
                "main mahesh kumar bol raha hoon", "हां जी मैं महेश भाई बोल रहा हूं", "ji main khud bol raha hoon",
                "mahesh here", "haan ji main mahesh bol raha hoon kaun", "mahesh ji bol rahe hain",
                "मैं महेश हूं", "हां बेटा जी मैं महेश हूं बोलिए", "i am mahesh", "haan hukum mahesh bol ryo su",
                "ha ho hum mahesh bol tani boliye", "हम महेश बानी"]  # fmt: skip
WRONG_NUMBER = ["galat number hai", "रॉन्ग नंबर", "wrong number hai bhai", "मैं वो नहीं हूं गलत नंबर है",
                "mahesh ji ka number tha ye pehle ab main use karta hoon", "पहले उनका नंबर था अब मेरा है"]


def _not_pitched(reply, session) -> None:
    assert reply.fields["phase"] != "PITCHED" and L.PITCH not in session.moves, session.moves
    assert LOAD.origin not in (reply.text or "")  # nothing of the load to someone else
    assert reply.disposition not in ("wrong_number", "declined")


@pytest.mark.parametrize("text", ASK)
def test_someone_else_is_asked_for_the_vendor_or_a_time(text: str) -> None:
    session = started(f"other-{text}")
    reply = play(session, text)
    _not_pitched(reply, session)
    assert reply.fields["phase"] == "OPENING" and not reply.hang_up
    assert LOAD.vendor_name in reply.text and "कब" in reply.text  # the vendor, or when to call
    assert session.moves[-1] == L.ASK_PERSON


@pytest.mark.parametrize("text", HOLD)
def test_a_hand_over_is_waited_for(text: str) -> None:
    session = started(f"hold-{text}")
    reply = play(session, text)
    _not_pitched(reply, session)
    assert reply.fields["phase"] == "OPENING" and not reply.hang_up
    assert session.moves[-1] == L.HOLD_ON


@pytest.mark.parametrize("text", LATER)
def test_a_time_or_he_will_call_closes_politely(text: str) -> None:
    session = started(f"later-{text}")
    reply = play(session, text)
    _not_pitched(reply, session)
    assert reply.hang_up and reply.disposition == "callback" and reply.fields["phase"] == "CLOSING"


@pytest.mark.parametrize("text", RIGHT_PERSON)
def test_the_vendor_himself_still_gets_the_pitch(text: str) -> None:
    assert not classify(text, vendor=LOAD.vendor_name).other_person
    reply = play(started(f"right-{text}"), text)
    assert reply.fields["phase"] == "PITCHED" and LOAD.origin in reply.text


@pytest.mark.parametrize("text", WRONG_NUMBER)
def test_a_wrong_number_is_still_a_wrong_number(text: str) -> None:
    reply = play(started(f"wrong-{text}"), text)
    assert reply.hang_up and reply.disposition == "wrong_number"


@pytest.mark.parametrize(
    "answer", ["शाम को", "kal subah kar lena", "ek ghante baad", "after lunch call karna", "वो खुद कॉल कर लेंगे"]
)
def test_after_the_ask_a_time_closes_with_a_callback(answer: str) -> None:
    session = started(f"ask-time-{answer}")
    play(session, "main unka driver bol raha hoon")
    reply = play(session, answer)
    assert reply.hang_up and reply.disposition == "callback" and L.PITCH not in session.moves
    assert LOAD.vendor_name in reply.text  # the message for him


@pytest.mark.parametrize("arrives", ["haan ji main mahesh bol raha hoon", "हां जी बोलिए", "ji boliye",
                                     "ji mahesh speaking"])  # fmt: skip
def test_after_a_hand_over_the_vendor_gets_the_pitch(arrives: str) -> None:
    session = started(f"handover-{arrives}")
    play(session, "main unka beta hoon")
    assert session.moves[-1] == L.ASK_PERSON
    play(session, "haan ek minute dete hain")
    assert session.moves[-1] == L.HOLD_ON
    reply = play(session, arrives)
    assert reply.fields["phase"] == "PITCHED" and LOAD.origin in reply.text


def test_a_hello_from_the_new_voice_is_asked_who_it_is() -> None:
    session = started("handover-hello")
    play(session, "ek minute dete hain")
    reply = play(session, "hello")
    assert reply.fields["phase"] == "OPENING" and LOAD.vendor_name in reply.text
    assert play(session, "haan ji").fields["phase"] == "PITCHED"


@pytest.mark.parametrize("answer", ["pata nahi", "मालूम नहीं जी", "no idea", "nahi baat nahi ho sakti"])
def test_someone_who_cannot_say_when_gets_a_message_and_the_call_closes(answer: str) -> None:
    session = started(f"ask-unknown-{answer}")
    play(session, "वो घर पर नहीं हैं")
    reply = play(session, answer)
    assert reply.hang_up and reply.disposition == "callback" and L.PITCH not in session.moves


def test_unclear_answers_from_someone_else_never_get_the_pitch() -> None:
    session = started("ask-unclear")
    play(session, "main unka driver hoon")
    assert play(session, "kaun sa load hai").fields["phase"] == "OPENING"
    assert play(session, "kis company se").fields["phase"] == "OPENING"
    reply = play(session, "kya kaam tha")
    assert reply.hang_up and reply.disposition == "callback" and L.PITCH not in session.moves


def test_the_driver_after_the_pitch_is_asked_for_the_vendor() -> None:
    session = started("pitched-driver")
    play(session, "haan ji")
    reply = play(session, "main to driver hoon rate malik batayenge")
    assert reply.fields["phase"] == "OPENING" and session.moves[-1] == L.ASK_PERSON
    assert play(session, "ruko unko deta hoon").fields["phase"] == "OPENING"
    assert play(session, "haan main mahesh bol raha hoon").fields["phase"] == "PITCHED"


@pytest.mark.parametrize("text", ["sahab bahar gaye main unka munshi hoon bata deta hoon unko",
                                  "hum unkar beta baani hum bata deb"])
def test_someone_else_after_the_pitch_who_will_tell_him_is_asked_for_him(text: str) -> None:
    session = started(f"pitched-relay-{text}")
    play(session, "haan ji")
    reply = play(session, text)
    assert session.moves[-1] in (L.ASK_PERSON, L.CALLBACK_MESSAGE) and reply.fields["offered_rate"] is None, session.moves
    assert LOAD.vendor_name in reply.text or reply.hang_up


def test_the_wrong_person_through_the_command_line(tmp_path: Path) -> None:
    out = cli_call(tmp_path, ["main unka driver bol raha hoon", "ek minute dete hain", "haan ji main hi hoon boliye",
                              "pachees hazaar"])  # fmt: skip
    assert [t["phase"] for t in out[1:]] == ["OPENING", "OPENING", "PITCHED", "PROBING"]
    assert out[4]["heard_rate"] == 25_000


@pytest.mark.parametrize("text", ["main aapko bol raha hoon rate pachees hazaar", "main sach bol raha hoon pachees hazaar "
                                  "lagega", "main suresh ji se bhi yahi bol raha hoon pachees hazaar",
                                  "haan ji de do bhai pachees hazaar", "ji re bhai pachees hazaar"])  # fmt: skip
def test_after_the_pitch_bol_raha_hoon_is_no_introduction(text: str) -> None:
    session = started(f"pitched-{text}")
    play(session, "haan ji main mahesh bol raha hoon")
    reply = play(session, text)
    assert reply.fields["heard_rate"] == 25_000 and session.moves[-1] != L.ASK_PERSON, session.moves


@pytest.mark.parametrize("text", ["aap ke yahan se load kab uthega", "main apne bhai se pooch ke batata hoon",
                                  "haan ji de do bhai", "mera partner dekhta hai rate", "mera driver kal aayega"])
def test_the_vendor_speaking_of_others_is_still_the_vendor(text: str) -> None:
    it = classify(text, vendor=LOAD.vendor_name)
    assert not it.other_person and not it.stranger, it
