"""The benchmark report: every budget's verdict and the printed summary. Pure: a report dict in, text out.

Media budgets come from `analysis.verdicts` per call count (issue 16); policy cost and knowledge-base search
keep the budgets of issue 8. The report's verdict is PASS only when every budget it holds passes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

POLICY_P99_BUDGET_MS = 1.0
KB_P95_BUDGET_MS = 25.0


def _get(run: dict[str, Any], *path: str) -> Any:
    value: Any = run
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


# (header, value of a media run, format)
MEDIA_COLUMNS: tuple[tuple[str, Callable[[dict[str, Any]], Any], str], ...] = (
    ("N", lambda r: r["calls"], "{}"),
    ("calls/window", lambda r: _get(r, "figures", "calls", "placed_in_window"), "{}"),
    ("mean calls", lambda r: _get(r, "figures", "calls", "mean_concurrent"), "{:.0f}"),
    ("cpu s/call-min", lambda r: _get(r, "cpu", "s_per_call_minute"), "{:.3f}"),
    ("daemon cores", lambda r: _get(r, "cpu", "daemon_cores"), "{:.2f}"),
    ("db cores", lambda r: _get(r, "cpu", "db_cores"), "{:.2f}"),
    ("MB/call", lambda r: _get(r, "memory", "rss_mb_per_call"), "{:.2f}"),
    ("lost", lambda r: _get(r, "figures", "audio", "lost_frames"), "{}"),
    ("late p99", lambda r: _get(r, "figures", "audio", "lateness_ms", "p99"), "{:.1f}"),
    ("jitter max", lambda r: _get(r, "figures", "audio", "jitter_ms", "max"), "{:.1f}"),
    ("turn p95", lambda r: _get(r, "figures", "turns", "bridge_ms", "p95"), "{:.0f}"),
    ("v2v p95", lambda r: _get(r, "figures", "turns", "voice_ms", "p95"), "{:.0f}"),
    ("inbound %", lambda r: _get(r, "figures", "inbound", "processed_pct"), "{:.1f}"),
    ("unanswered", lambda r: _get(r, "budgets", "unanswered_turns", "value"), "{}"),
    ("refused", lambda r: _get(r, "figures", "calls", "refused"), "{}"),
    ("callers cores", lambda r: _get(r, "cpu", "callers_cores"), "{:.2f}"),
    ("verdict", lambda r: r.get("verdict"), "{}"),
)


def _verdict(value: float | None, op: str, limit: float) -> dict[str, Any]:
    ok = value is not None and (value < limit if op == "<" else value == limit)
    return {"value": value, "op": op, "limit": limit, "verdict": "PASS" if ok else "FAIL"}


def budgets(report: dict[str, Any]) -> dict[str, Any]:
    """Every budget of the report, named `n<N>.<budget>` for the media runs."""
    out: dict[str, Any] = {}
    for run in report.get("media") or []:
        split = f".k{run['daemons']['k']}" if run.get("daemons") else ""  # K daemons (benchmarks/multi_daemon.py)
        for name, v in (run.get("budgets") or {}).items():
            out[f"n{run['calls']}{split}.{name}"] = {k: v[k] for k in ("value", "op", "limit", "verdict")}
    for p in report.get("policy") or []:
        if "p99_ms" in p:
            out[f"policy_{p['policy']}_p99_ms"] = _verdict(p["p99_ms"], "<", POLICY_P99_BUDGET_MS)
    kb = report.get("kb")
    if kb:
        out["kb_search_p95_ms"] = _verdict(kb.get("search_p95_ms"), "<", KB_P95_BUDGET_MS)
    return out


def overall(verdicts: dict[str, Any]) -> str:
    return "PASS" if verdicts and all(v["verdict"] == "PASS" for v in verdicts.values()) else "FAIL"


def cell(value: Any, fmt: str) -> str:
    if value is None:
        return "-"
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def _grid(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    line = "  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True))
    body = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join([line, "-" * len(line), *body])


def render_table(report: dict[str, Any]) -> str:
    """The human-readable summary of a report."""
    parts: list[str] = []
    media = report.get("media") or []
    if media:
        parts.append("1. media path under churn, judged at the callers (cpu: daemon + its PostgreSQL; ms)")
        parts.append(_grid([h for h, _, _ in MEDIA_COLUMNS], [[cell(get(r), f) for _, get, f in MEDIA_COLUMNS]
                                                             for r in media]))
        for r in media:
            c = r.get("contention") or {}
            parts.append(f"N={r['calls']}: load average {r['load_average']['window_start']}, other processes "
                         f"{c.get('other_processes_cores')} cores, daemon waited for a CPU "
                         f"{c.get('daemon_runqueue_wait_pct')} % of the window; turns by end of turn: "
                         + (", ".join(f"{kind} {k['turns']} (v2v p95 {cell(k['voice_ms']['p95'], '{:.0f}')} ms)"
                                      for kind, k in (_get(r, "figures", "turns", "by_end") or {}).items()) or "none"))
            if not r["valid"]["ok"]:
                parts.append(f"N={r['calls']} run not valid: " + "; ".join(r["valid"]["problems"]))
        if any(r.get("daemons") for r in media):
            from benchmarks.multi_daemon import render

            parts.extend(render(media))
    if report.get("knee"):
        from benchmarks.knee import summary_lines

        parts.append("1. the capacity knee, searched (" + ("pinned" if report["knee"]["pinned"] else "not pinned") + ")")
        parts.extend(summary_lines(report["knee"]))
    if report.get("policy"):
        parts.append("\n2. policy cost")
        rows = [[p["policy"], "skipped: " + p["skipped"], "", "", ""] if "skipped" in p else
                [p["policy"], str(p["decisions_per_s"]), f"{p['p50_ms']:.3f}", f"{p['p99_ms']:.3f}", f"{p['max_ms']:.2f}"]
                for p in report["policy"]]
        parts.append(_grid(["policy", "decisions/s", "p50 ms", "p99 ms", "max ms"], rows))
    kb = report.get("kb")
    if kb:
        parts.append("\n3. knowledge base")
        parts.append(_grid(["chunks", "ingest/s", "bulk ingest/s", "search p50 ms", "search p95 ms"],
                           [[str(kb.get("chunks")), str(kb.get("ingest_entries_per_s")), str(kb.get("bulk_ingest_entries_per_s")),
                             str(kb.get("search_p50_ms")), str(kb.get("search_p95_ms"))]]))
    verdicts = report.get("budgets") or {}
    if verdicts:
        parts.append("\nbudgets")
        rows = [[name, cell(v["value"], "{}"), f"{v['op']} {v['limit']}", v["verdict"]] for name, v in verdicts.items()]
        parts.append(_grid(["budget", "value", "limit", "verdict"], rows))
        parts.append(f"\nverdict: {overall(verdicts)}")
    return "\n".join(parts)
