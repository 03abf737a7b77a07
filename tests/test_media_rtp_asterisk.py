"""RTP that a real Asterisk 22 sent to the daemon's externalMedia socket during real calls, ulaw and slin, kept byte
for byte (`tests/data/rtp-asterisk/`, made by `tests/support/asterisk/capture_rtp.py`): every datagram parses and
serializes back to the same bytes, its fields are what the capture's manifest (decoded with struct alone) says
and what externalMedia must send (the codec's payload type and 20 ms frame, consecutive numbering); sent over
real UDP to an endpoint, each is accepted and decoded, and its loss is the gap between the two captured runs."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ai_operator.media.codecs import get_codec
from ai_operator.media.rtp import RtpPacket
from ai_operator.media.transport import PortAllocator, RtpEndpoint
from tests.support.ports import free_udp_range
from tests.support.wait import eventually

FIXTURES = Path(__file__).parent / "data" / "rtp-asterisk"
CODECS = ("ulaw", "slin")
SEQ_MOD = 1 << 16


def manifest(codec_name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{codec_name}.json").read_text(encoding="utf-8"))
    return data


def captured(codec_name: str) -> list[list[tuple[dict[str, Any], bytes]]]:
    return [[(entry, (FIXTURES / entry["file"]).read_bytes()) for entry in run] for run in manifest(codec_name)["runs"]]


@pytest.mark.parametrize("codec_name", CODECS)
def test_asterisk_packets_round_trip_byte_exact_field_by_field(codec_name: str) -> None:
    codec = get_codec(codec_name)
    assert manifest(codec_name)["asterisk"].startswith("Asterisk 22")
    runs = captured(codec_name)
    assert len(runs) == 2 and all(len(run) == 5 for run in runs)
    for run in runs:
        for entry, data in run:
            packet = RtpPacket.parse(data)
            assert packet.serialize() == data, entry["file"]
            assert len(data) == entry["size"] == 12 + codec.bytes_per_frame
            assert packet.version == entry["version"] == 2
            assert (packet.padding, packet.extension_profile, packet.csrc) == (0, None, [])
            assert not (entry["padding"] or entry["extension"] or entry["csrc_count"])
            assert packet.marker == entry["marker"]
            assert packet.payload_type == entry["payload_type"] and codec.accepts(packet.payload_type)
            assert packet.sequence_number == entry["sequence_number"]
            assert packet.timestamp == entry["timestamp"]
            assert packet.ssrc == entry["ssrc"]
            assert packet.payload == data[12:] and len(packet.payload) == codec.bytes_per_frame
        first = RtpPacket.parse(run[0][1])
        for i, (_entry, data) in enumerate(run):  # one 20 ms frame after another, one source
            packet = RtpPacket.parse(data)
            assert packet.sequence_number == (first.sequence_number + i) % SEQ_MOD
            assert packet.timestamp == (first.timestamp + 160 * i) % (1 << 32)
            assert packet.ssrc == first.ssrc
    voiced = [RtpPacket.parse(data).payload for _entry, data in runs[1]]
    assert all(payload != codec.silence_payload() for payload in voiced)  # the caller's voice, not silence


@pytest.mark.parametrize("codec_name", CODECS)
async def test_asterisk_packets_are_accepted_decoded_and_counted_by_an_endpoint(codec_name: str) -> None:
    codec = get_codec(codec_name)
    runs = captured(codec_name)
    frames: list[np.ndarray] = []
    base = free_udp_range(2)
    ep = await RtpEndpoint.open(PortAllocator("127.0.0.1", base, base + 1), codec, frames.append)
    asterisk = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    asterisk.bind(("127.0.0.1", 0))
    try:
        ep.set_remote(*asterisk.getsockname())
        datagrams = [data for run in runs for _entry, data in run]
        for data in datagrams:
            asterisk.sendto(data, ep.local_address)
        await eventually(lambda: ep.stats.received == len(datagrams), what="every captured packet")
        assert ep.stats.as_dict()["dropped_wrong_pt"] == 0 and len(frames) == len(datagrams)
        for frame, data in zip(frames, datagrams, strict=True):
            assert np.array_equal(frame, codec.decode(data[12:]))
        first = runs[0][0][0]["sequence_number"]
        last = runs[1][-1][0]["sequence_number"]
        expected = (last - first) % SEQ_MOD + 1  # the second run came later in the same stream
        figures = ep.receive_stats.figures()
        assert (figures.packets_received, figures.packets_expected) == (10, expected)
        assert figures.packets_lost == expected - 10
    finally:
        ep.close()
        asterisk.close()
