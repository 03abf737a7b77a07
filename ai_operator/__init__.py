"""ai-operator: an asyncio bridge between an Asterisk PBX (ARI + externalMedia RTP) and AI phone agents."""

__version__ = "0.1.0"
