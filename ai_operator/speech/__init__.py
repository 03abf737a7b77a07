"""Speech and model adapters: STT (stt.py), TTS (tts.py protocol; espeak.py, openai_tts.py, cache.py), the chat
model with tools (model.py), resampling to 8 kHz (resample.py), WAV parsing (wav.py), per-route construction
(factory.py) and instant adapters for benchmarks only (instant.py). All audio is int16 8 kHz mono numpy."""
