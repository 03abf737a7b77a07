"""The media path of a call: RTP wire format (rtp.py), G.711 (g711.py), the externalMedia codecs (codecs.py),
the UDP socket per call and its port allocator (transport.py, the only socket code here), outgoing playout with
one pacing loop for all calls (playout.py, pacer.py, timing.py), caller speech segmentation (vad.py) and barge-in
detection (bargein.py)."""
