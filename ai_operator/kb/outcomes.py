"""What an ingestion reports (`IngestSummary`) and what the knowledge base refuses: vectors of another embedder
(`EmbedderMismatch`), a prune deleting too much (`PruneRefused`), an id another knowledge base holds (`IdTaken`).
In each refusal nothing was changed."""

from __future__ import annotations

from dataclasses import dataclass


class EmbedderMismatch(RuntimeError):
    """The stored vectors come from another embedder or dimension than the configured one."""


class PruneRefused(RuntimeError):
    """A prune would delete more than the allowed share of the stored entries; nothing was changed."""

    def __init__(self, doomed: int, total: int, max_share: float) -> None:
        super().__init__(f"--prune would delete {doomed} of {total} entries ({doomed / total:.0%}, more than {max_share:.0%})")
        self.doomed = doomed
        self.total = total


@dataclass(frozen=True)
class IngestSummary:
    """What one ingestion did with the entries it was given (rejected lines never reach it)."""

    read: int
    inserted: int
    updated: int
    unchanged: int
    pruned: int
    dropped_gates: int = 0  # calibrated gates of another embedder, dropped: they were fitted to other vectors


class IdTaken(ValueError):
    """An entry's id is another knowledge base's; nothing was changed."""


def mismatch_message(stored_name: str, stored_dim: int, name: str, dim: int) -> str:
    return (f"knowledge base vectors were made by {stored_name} (dim {stored_dim}) but the configured embedder is "
            f"{name} (dim {dim}); run `ai-operator kb ingest --reembed <file>` to re-embed every chunk")


__all__ = ["EmbedderMismatch", "IdTaken", "IngestSummary", "PruneRefused", "mismatch_message"]
