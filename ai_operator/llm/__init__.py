"""The language model: `chat.py` (chat completions with a policy-checked tool loop)."""
