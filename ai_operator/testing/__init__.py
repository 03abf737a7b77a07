"""Test and benchmark helpers shipped with the package: openai_server.py (a local OpenAI-compatible server)."""
