"""The one audio format inside the daemon: 8 kHz mono int16, cut into 20 ms frames. Named once, here."""

SAMPLE_RATE = 8000
FRAME_MS = 20
FRAME_SAMPLES = SAMPLE_RATE * FRAME_MS // 1000  # 160
FRAME_S = FRAME_MS / 1000.0
