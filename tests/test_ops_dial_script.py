"""scripts/dial-test-route.sh: syntax, the sipp scenario, the audio conversion, and a real sipp call
against a small SIP user agent on 127.0.0.1 that challenges, answers, receives the RTP and hangs up."""

from __future__ import annotations

import hashlib
import re
import shutil
import socket
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "dial-test-route.sh"
SCENARIO = REPO / "scripts" / "sipp" / "uac-test-route.xml"
needs_sox = pytest.mark.skipif(
    shutil.which("sox") is None or shutil.which("espeak-ng") is None, reason="sox and espeak-ng needed"
)


def test_scripts_have_valid_bash_syntax():
    for script in (SCRIPT, REPO / "scripts" / "install-system.sh"):
        r = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, check=False)
        assert r.returncode == 0, f"{script.name}: {r.stderr}"


def test_scenario_parses_and_has_the_call_flow():
    root = ET.parse(SCENARIO).getroot()
    assert root.tag == "scenario"
    steps = [(el.tag, el.attrib) for el in root]
    assert ("recv", {"response": "401", "auth": "true"}) in steps
    invites = [el.text for el in root.iter("send") if el.text and "INVITE sip:" in el.text]
    assert len(invites) == 2 and "[authentication]" in invites[1]
    assert all("RTP/AVP 0" in text for text in invites)
    exec_ = root.find("./nop/action/exec")
    assert exec_ is not None and exec_.get("rtp_stream") == "@AUDIO_FILE@,1,0"
    labels = {el.get("id") for el in root.iter("label")}
    bye = next(el for el in root.iter("recv") if el.get("request") == "BYE")
    assert bye.get("ontimeout") in labels and bye.get("timeout") == "@LISTEN_MS@"


def test_bad_arguments_are_named(tmp_path):
    r = subprocess.run(
        ["bash", str(SCRIPT), "-n", str(tmp_path / "none.wav")], capture_output=True, text=True
    )
    assert r.returncode == 2 and "audio file not readable" in r.stderr
    wav = tmp_path / "a.wav"
    wav.write_bytes(b"")
    r = subprocess.run(["bash", str(SCRIPT), "-n", "-P", "abc", str(wav)], capture_output=True, text=True)
    assert r.returncode == 2 and "-P: port must be a number" in r.stderr


def _speech(tmp_path: Path) -> Path:
    wav = tmp_path / "speech.wav"
    subprocess.run(
        ["espeak-ng", "-v", "ru", "-w", str(wav), "Здравствуйте, у меня нет интернета"], check=True
    )
    return wav


@needs_sox
@pytest.mark.parametrize("password", ["pw-secret", "pw[s]1"])  # glob characters must not defeat the mask
def test_dry_run_converts_audio_and_renders_scenario(tmp_path, password):
    work = tmp_path / "work"
    r = subprocess.run(
        ["bash", str(SCRIPT), "-n", "-e", "200", "-l", "7", "-p", password, str(_speech(tmp_path))],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "WORK_DIR": str(work)},
        check=False,
    )
    assert r.returncode == 0, r.stderr
    wav = work / "caller-ulaw.wav"
    info = subprocess.run(["soxi", str(wav)], capture_output=True, text=True, check=True).stdout
    assert "Sample Rate    : 8000" in info and "u-law" in info and "Channels       : 1" in info
    seconds = float(subprocess.run(["soxi", "-D", str(wav)], capture_output=True, text=True).stdout)
    root = ET.parse(work / "uac-test-route.xml").getroot()
    assert root.find("./nop/action/exec").get("rtp_stream") == f"{wav},1,0"
    bye = next(el for el in root.iter("recv") if el.get("request") == "BYE")
    assert int(bye.get("timeout")) == (int(seconds) + 7) * 1000
    assert "-s 200" in r.stdout and "pw-secret" not in r.stdout
    assert "-ap \\*\\*\\* -m 1 " in r.stdout  # the password word, and only it, is masked
    assert "pw[s]1" not in r.stdout and "pw\\[s\\]1" not in r.stdout


class TinyUas:
    """Just enough of a SIP UAS for one call: 401 challenge, digest check, 200 OK, RTP sink, BYE."""

    def __init__(self, user: str, password: str) -> None:
        self.user, self.password, self.realm, self.nonce = user, password, "ai-operator-test", "4e6f6e6365"
        self.sip = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sip.bind(("127.0.0.1", 0))
        self.rtp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rtp.bind(("127.0.0.1", 0))
        self.port, self.rtp_port = self.sip.getsockname()[1], self.rtp.getsockname()[1]
        self.log: list[str] = []

    def recv(self, timeout: float = 10.0) -> tuple[str, dict[str, str], str, tuple[str, int]]:
        self.sip.settimeout(timeout)
        data, addr = self.sip.recvfrom(65535)
        text = data.decode()
        head, _, body = text.partition("\r\n\r\n")
        lines = head.split("\r\n")
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers.setdefault(k.strip().lower(), v.strip())
        self.log.append(lines[0])
        return lines[0], headers, body, addr

    def reply(
        self, addr, h: dict[str, str], status: str, extra: str = "", body: str = "", to_tag: str = ""
    ) -> None:
        to = h["to"] + (f";tag={to_tag}" if to_tag and "tag=" not in h["to"] else "")
        msg = (
            f"SIP/2.0 {status}\r\nVia: {h['via']}\r\nFrom: {h['from']}\r\nTo: {to}\r\nCall-ID: {h['call-id']}\r\n"
            f"CSeq: {h['cseq']}\r\n{extra}Content-Length: {len(body.encode())}\r\n\r\n{body}"
        )
        self.sip.sendto(msg.encode(), addr)

    def digest_ok(self, authorization: str) -> bool:
        f = dict(re.findall(r'(\w+)="?([^",]*)"?', authorization))
        md5 = lambda s: hashlib.md5(s.encode()).hexdigest()  # noqa: E731
        expected = md5(
            f"{md5(f'{self.user}:{self.realm}:{self.password}')}:{self.nonce}:{md5('INVITE:' + f['uri'])}"
        )
        return f.get("username") == self.user and f.get("response") == expected

    def close(self) -> None:
        self.sip.close()
        self.rtp.close()


@needs_sox
@pytest.mark.skipif(shutil.which("sipp") is None, reason="apt-get install sip-tester")
def test_real_sipp_call_against_a_tiny_uas(tmp_path):
    uas = TinyUas("test-caller", "pw-1")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        media_port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            "bash",
            str(SCRIPT),
            "-H",
            "127.0.0.1",
            "-P",
            str(uas.port),
            "-e",
            "100",
            "-p",
            "pw-1",
            "-l",
            "10",
            "-m",
            str(media_port),
            str(_speech(tmp_path)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "WORK_DIR": str(tmp_path / "work"), "TERM": "dumb"},
    )
    try:
        start, h, _, addr = uas.recv()
        assert start == f"INVITE sip:100@127.0.0.1:{uas.port} SIP/2.0" and "authorization" not in h
        uas.reply(
            addr,
            h,
            "401 Unauthorized",
            f'WWW-Authenticate: Digest realm="{uas.realm}", nonce="{uas.nonce}", algorithm=MD5\r\n',
            to_tag="t1",
        )
        start, h, _, addr = uas.recv()
        assert start.startswith("ACK ") and h["cseq"] == "1 ACK"
        start, h, body, addr = uas.recv()
        assert start.startswith("INVITE ") and h["cseq"] == "2 INVITE" and uas.digest_ok(h["authorization"])
        assert f"m=audio {media_port} RTP/AVP 0" in body
        sdp = f"v=0\r\no=uas 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio {uas.rtp_port} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
        invite = dict(h)
        uas.reply(
            addr,
            h,
            "200 OK",
            f"Contact: <sip:uas@127.0.0.1:{uas.port}>\r\nContent-Type: application/sdp\r\n",
            sdp,
            to_tag="t2",
        )
        start, h, _, addr = uas.recv()
        assert start.startswith(f"ACK sip:uas@127.0.0.1:{uas.port}") and h["cseq"] == "2 ACK"
        # the caller's speech arrives as PCMU RTP, 20 ms per packet
        uas.rtp.settimeout(5)
        packets = []
        deadline = time.monotonic() + 10
        while len(packets) < 25 and time.monotonic() < deadline:
            packets.append(uas.rtp.recv(2048))
        assert len(packets) >= 25
        assert all(p[0] >> 6 == 2 and p[1] & 0x7F == 0 and len(p) == 12 + 160 for p in packets)
        # the bot hangs up: sipp must answer 200 and exit 0
        bye = (
            f"BYE sip:test-caller@{addr[0]}:{addr[1]} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:{uas.port};branch=z9hG4bKbye1\r\n"
            f"From: {invite['to']};tag=t2\r\nTo: {invite['from']}\r\nCall-ID: {invite['call-id']}\r\nCSeq: 1 BYE\r\n"
            f"Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
        )
        uas.sip.sendto(bye.encode(), addr)
        while True:
            start, h, _, _ = uas.recv()
            if start.startswith("SIP/2.0 200") and h["cseq"] == "1 BYE":
                break
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, (out.decode()[-2000:], err.decode()[-2000:], uas.log)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        uas.close()
