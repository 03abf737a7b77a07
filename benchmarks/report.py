"""The benchmark report: budget verdicts (issue 8) and the printed table. Pure: a report dict in, text out."""

from __future__ import annotations

from typing import Any

BUDGET_N = 200
SEND_P99_BUDGET_MS = 5.0
CORES_BUDGET = 1.0
LATENCY_N1_P95_BUDGET_MS = 30.0
LATENCY_N200_P95_BUDGET_MS = 60.0
POLICY_P99_BUDGET_MS = 1.0
KB_P95_BUDGET_MS = 25.0

MEDIA_COLUMNS = (
    ("calls", "N", "{}"), ("cpu_s_per_call_minute", "cpu s/call-min", "{:.3f}"), ("daemon_cores", "cores", "{:.2f}"),
    ("rss_mb_per_call", "MB/call", "{:.2f}"), ("frames_received", "frames", "{}"), ("frames_lost", "lost", "{}"),
    ("frames_late", "late", "{}"), ("send_error_p50_ms", "send p50", "{:.2f}"), ("send_error_p99_ms", "send p99", "{:.2f}"),
    ("send_error_max_ms", "send max", "{:.1f}"), ("late_ticks", "late ticks", "{}"),
    ("turn_bridge_p50_ms", "turn p50", "{:.1f}"), ("turn_bridge_p95_ms", "turn p95", "{:.1f}"),
    ("daemon_bridge_p95_ms", "own p95", "{:.1f}"), ("sim_process_cores", "sim cores", "{:.2f}"),
)


def _verdict(value: float | None, budget: float, *, strict_zero: bool = False) -> dict[str, Any]:
    if value is None:
        return {"value": None, "budget": budget, "ok": None}
    ok = value == 0 if strict_zero else value < budget
    return {"value": value, "budget": budget, "ok": ok, "margin": round(budget - value, 3)}


def _run_at(report: dict[str, Any], n: int) -> dict[str, Any] | None:
    return next((r for r in report.get("media") or [] if r.get("calls") == n), None)


def budgets(report: dict[str, Any]) -> dict[str, Any]:
    """Each budget of issue 8 with its measured value and whether it holds (None: not measured in this run)."""
    out: dict[str, Any] = {}
    r200 = _run_at(report, BUDGET_N)
    if r200 is not None:
        out["n200_send_p99_ms"] = _verdict(r200.get("send_error_p99_ms"), SEND_P99_BUDGET_MS)
        out["n200_frames_lost"] = _verdict(r200.get("frames_lost"), 0, strict_zero=True)
        out["n200_daemon_cores"] = _verdict(r200.get("daemon_cores"), CORES_BUDGET)
        out["n200_turn_p95_ms"] = _verdict(r200.get("turn_bridge_p95_ms"), LATENCY_N200_P95_BUDGET_MS)
    n1 = report.get("latency_n1")
    if n1:
        out["n1_turn_p95_ms"] = _verdict(n1.get("turn_bridge_p95_ms"), LATENCY_N1_P95_BUDGET_MS)
    for p in report.get("policy") or []:
        if "p99_ms" in p:
            out[f"policy_{p['policy']}_p99_ms"] = _verdict(p["p99_ms"], POLICY_P99_BUDGET_MS)
    kb = report.get("kb")
    if kb:
        out["kb_search_p95_ms"] = _verdict(kb.get("search_p95_ms"), KB_P95_BUDGET_MS)
    return out


def _cell(value: Any, fmt: str) -> str:
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
    media = [r for r in [report.get("latency_n1"), *(report.get("media") or [])] if r]
    if media:
        parts.append("1+2. media path and bridge-added turn latency (ms; daemon process only for cpu/MB)")
        parts.append(_grid([h for _, h, _ in MEDIA_COLUMNS],
                           [[_cell(r.get(k), f) for k, _, f in MEDIA_COLUMNS] for r in media]))
    if report.get("policy"):
        parts.append("\n3. policy cost")
        rows = [[p["policy"], "skipped: " + p["skipped"], "", "", ""] if "skipped" in p else
                [p["policy"], str(p["decisions_per_s"]), f"{p['p50_ms']:.3f}", f"{p['p99_ms']:.3f}", f"{p['max_ms']:.2f}"]
                for p in report["policy"]]
        parts.append(_grid(["policy", "decisions/s", "p50 ms", "p99 ms", "max ms"], rows))
    kb = report.get("kb")
    if kb:
        parts.append("\n4. knowledge base")
        parts.append(_grid(["chunks", "ingest/s", "bulk ingest/s", "search p50 ms", "search p95 ms"],
                           [[str(kb.get("chunks")), str(kb.get("ingest_entries_per_s")), str(kb.get("bulk_ingest_entries_per_s")),
                             str(kb.get("search_p50_ms")), str(kb.get("search_p95_ms"))]]))
    verdicts = report.get("budgets") or {}
    if verdicts:
        parts.append("\nbudgets")
        rows = [[name, _cell(v["value"], "{}"), f"< {v['budget']}" if name != "n200_frames_lost" else "== 0",
                 {True: "ok", False: "MISS", None: "not measured"}[v["ok"]]] for name, v in verdicts.items()]
        parts.append(_grid(["budget", "value", "limit", "verdict"], rows))
    return "\n".join(parts)
