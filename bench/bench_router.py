"""The understanding stage on 2 cores: one embedding plus one matrix product on top of the slots and cues.

Measured warm over the assistant evaluation's messages: the whole `understand()` call, and the
router's own part (embedding the question, scoring it against the exemplar matrix).
"""

from __future__ import annotations

import statistics
import time


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run() -> list[tuple[str, str, str]]:
    from evaluators.assistant_eval import load
    from service.catalog import default_catalog
    from service.understanding import RoutedUnderstander

    messages = [t["message"][:2000] for c in load() for t in c["turns"]]
    understander = RoutedUnderstander(default_catalog())
    started = time.perf_counter()
    matrix = understander.router.matrix  # built (or read from the cache) once per process
    build_ms = (time.perf_counter() - started) * 1000
    for text in messages[:20]:
        understander.understand(text)  # warm: ONNX session, regexes
    total, embed, product = [], [], []
    for text in messages:
        t0 = time.perf_counter()
        understander.understand(text)
        total.append((time.perf_counter() - t0) * 1000)
        t1 = time.perf_counter()
        vector = understander.router.embed(text)
        t2 = time.perf_counter()
        _ = matrix @ vector
        t3 = time.perf_counter()
        embed.append((t2 - t1) * 1000)
        product.append((t3 - t2) * 1000)
    return [
        ("understand() p50", f"{statistics.median(total):.2f} ms", f"{len(messages)} messages; the chat turn's budget is 30 ms"),
        ("understand() p95", f"{_pct(total, 0.95):.2f} ms", ""),
        ("router: embed the question p50", f"{statistics.median(embed):.2f} ms", "target ~1-2 ms"),
        ("router: exemplar matrix product p50", f"{statistics.median(product):.3f} ms", f"{matrix.shape[0]} exemplars x {matrix.shape[1]}"),
        ("router ready (cold: encoder load + matrix)", f"{build_ms:.0f} ms", "the matrix is embedded on first start, then read from the cache"),
    ]
