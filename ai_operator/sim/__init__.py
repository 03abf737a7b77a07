"""The simulated world the product ships for its demo and for `ai-operator simpbx`: an Asterisk ARI double with
RTP callers (`pbx/`), a local OpenAI-compatible server (`openai_server.py`, `fake_content.py`), instant speech
adapters for benchmarks (`instant.py`), and the stage that runs the real daemon against them in one process
(`stage.py`, `demo.py`). Nothing in the daemon imports from here.
"""
