"""The one speech error: speech-to-text or text-to-speech failed."""


class SpeechError(Exception):
    """Speech-to-text or text-to-speech failed; the message names the provider and the failure."""
