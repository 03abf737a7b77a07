"""Text embeddings for the knowledge base: the `Embedder` protocol, an offline deterministic `HashEmbedder`,
and `OpenAIEmbedder` (any OpenAI-compatible /v1/embeddings endpoint, bounded timeout)."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ai_operator.config.settings import ConfigError
from ai_operator.kb.query import STOPWORDS

DEFAULT_DIM = 256
HASH_EMBEDDER_NAME = "hash-v2"
WORD_WEIGHT = 1.0
NGRAM_WEIGHT = 0.35
NGRAM_SIZES = (3, 4)
OPENAI_TIMEOUT_S = 10.0
OPENAI_MAX_RETRIES = 1
OPENAI_BATCH = 256

_WORD_RE = re.compile(r"\w+", re.UNICODE)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors of `dim` floats; `name` identifies the model (recorded with data)."""

    name: str
    dim: int

    async def embed(self, texts: Sequence[str]) -> list[np.ndarray]: ...


class HashEmbedder:
    """Feature hashing of lower-cased word unigrams and character 3/4-grams (signed, L2-normalised); numbers
    and function words (the query stopwords) are left out.

    Deterministic and offline: the same text always gives the same vector, and texts sharing words or word
    pieces (inflected forms: "тариф", "тарифы", "тарифтер") get similar vectors.
    """

    def __init__(self, dim: int = DEFAULT_DIM) -> None:
        if dim < 8:
            raise ValueError("dim: must be at least 8")
        self.dim = dim
        self.name = HASH_EMBEDDER_NAME

    def features(self, text: str) -> list[tuple[str, float]]:
        out: list[tuple[str, float]] = []
        for word in _WORD_RE.findall(text.lower()):
            if word in STOPWORDS or word.isdigit():
                continue
            out.append(("w:" + word, WORD_WEIGHT))
            padded = f"<{word}>"
            for n in NGRAM_SIZES:
                for i in range(len(padded) - n + 1):
                    out.append(("g:" + padded[i : i + n], NGRAM_WEIGHT))
        return out

    def embed_one(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        feats = self.features(text)
        if feats:
            hashes = np.fromiter((zlib.crc32(f.encode("utf-8")) for f, _ in feats), dtype=np.uint64, count=len(feats))
            weights = np.fromiter((w for _, w in feats), dtype=np.float32, count=len(feats))
            signs = np.where((hashes >> np.uint64(31)) & np.uint64(1), -1.0, 1.0).astype(np.float32)
            np.add.at(vec, (hashes % np.uint64(self.dim)).astype(np.intp), signs * weights)
        norm = float(np.linalg.norm(vec))
        if norm > 0:
            vec /= norm
        return vec

    async def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        return [self.embed_one(t) for t in texts]


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible server (`/v1/embeddings`), `timeout_s` per request."""

    def __init__(self, api_key: str, base_url: str | None, model: str, dim: int,
                 *, timeout_s: float = OPENAI_TIMEOUT_S) -> None:
        from openai import AsyncOpenAI

        self.model = model
        self.dim = dim
        self.name = f"openai:{model}"
        self._client: Any = AsyncOpenAI(api_key=api_key, base_url=base_url or None, timeout=timeout_s,
                                        max_retries=OPENAI_MAX_RETRIES)

    async def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for start in range(0, len(texts), OPENAI_BATCH):
            batch = list(texts[start : start + OPENAI_BATCH])
            resp = await self._client.embeddings.create(model=self.model, input=batch, dimensions=self.dim)
            data = sorted(resp.data, key=lambda d: d.index)
            for item in data:
                vec = np.asarray(item.embedding, dtype=np.float32)
                if vec.shape != (self.dim,):
                    raise ValueError(f"embedding model {self.model} returned {vec.shape[0]} dimensions, "
                                     f"EMBEDDING_DIM is {self.dim}")
                norm = float(np.linalg.norm(vec))
                out.append(vec / norm if norm > 0 else vec)
        return out

    async def close(self) -> None:
        await self._client.close()


def build_embedder(settings: Any) -> Embedder:
    """The embedder the settings ask for (EMBEDDING_PROVIDER, EMBEDDING_MODEL, EMBEDDING_DIM)."""
    provider = settings.speech.embedding_provider
    dim = settings.speech.embedding_dim
    if provider == "hash":
        return HashEmbedder(dim)
    if provider == "openai":
        key = str(settings.value("OPENAI_API_KEY"))  # the OpenAI account (the openai provider's settings group)
        if not key:
            raise ConfigError("EMBEDDING_PROVIDER: openai needs OPENAI_API_KEY (or use EMBEDDING_PROVIDER=hash)")
        return OpenAIEmbedder(key, str(settings.value("OPENAI_BASE_URL")) or None, settings.speech.embedding_model, dim)
    raise ConfigError(f"EMBEDDING_PROVIDER: expected hash or openai, got {provider!r}")
