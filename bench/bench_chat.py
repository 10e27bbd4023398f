"""Chat turns in process, no LLM, on questions the process has never seen (issue 26).

The process warms up on one set of questions and is timed on another (evaluators/bench_questions.py: people's
questions, templated ones and pasted logs, both languages, all categories), with the answer memo off: the headline
is the cost of computing an answer to a new question. Then the same questions are asked again (their own vectors
are cached by then), and with the memo on a repeated question is a lookup; both rows say what they are. Encoder runs
per turn are counted (a count, not a time: the shape of the cost). Wall time and this process's CPU time are both
shown: on a shared machine the CPU time is the steadier of the two.

Beside it, fact recall on the tuned conversation set and a naive baseline: a dense-only LangChain retriever piped
into "join the chunks", on the same questions.
"""

from __future__ import annotations

import re
import statistics
import tempfile
import time
from pathlib import Path

WARM, MEASURED = 40, 200


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class _CountingSession:
    """The encoder's own ONNX session, counting runs."""

    def __init__(self, inner) -> None:
        self.inner, self.runs = inner, 0

    def run(self, *args, **kwargs):
        self.runs += 1
        return self.inner.run(*args, **kwargs)


def _timed(assistant, questions: list[str], session: _CountingSession) -> tuple[list[float], list[float], list[int]]:
    from service.assistant.answer import ChatRequest

    wall, cpu, runs = [], [], []
    for message in questions:
        before, started, started_cpu = session.runs, time.perf_counter(), time.process_time()
        assistant.answer(ChatRequest(message=message))
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        runs.append(session.runs - before)
    return wall, cpu, runs


def run() -> list[tuple[str, str, str]]:
    from langchain_core.runnables import RunnableLambda

    from evaluators.assistant_eval import load
    from evaluators.bench_questions import question_sets
    from service.assistant.answer import ChatRequest
    from service.config import Settings
    from service.retrieval import KnowledgeRetriever
    from service.retrieval.embeddings import shared_use_multilingual
    from service.runtime import Runtime

    warm, unseen = question_sets((WARM, MEASURED))
    conversations = load()
    with tempfile.TemporaryDirectory() as tmp:
        runtime = Runtime(Settings(data_dir=Path(tmp), environment="test", answer_memo_size=0))
        index = runtime.open_index()
        assistant = runtime.assistant
        encoder = shared_use_multilingual()
        session = encoder._session = _CountingSession(encoder._session)
        _timed(assistant, warm, session)  # jieba's dictionary, first-use paths; not these questions
        wall, cpu, runs = _timed(assistant, unseen, session)
        again, _, _ = _timed(assistant, unseen, session)

        memo_runtime = Runtime(Settings(data_dir=Path(tmp), environment="test"))
        memo_runtime.open_index()
        memoised = memo_runtime.assistant
        for message in unseen[:40]:
            memoised.answer(ChatRequest(message=message))
        memo, _, _ = _timed(memoised, unseen[:40], session)
        memo_runtime.close()

        hit = total = 0
        for conv in conversations:
            conversation_id = None
            for turn in conv["turns"]:
                answer = assistant.answer(ChatRequest(message=turn["message"], conversation_id=conversation_id))
                conversation_id = answer.conversation_id
                total += len(turn["facts"])
                hit += sum(bool(re.search(f, answer.answer, re.I)) for f in turn["facts"])

        retriever = KnowledgeRetriever(index=index, k=3, mode="dense")
        naive = retriever | RunnableLambda(lambda docs: "\n\n".join(d.page_content for d in docs))
        naive_latencies, naive_hit = [], 0
        questions = [(t["message"][:2000], t["facts"]) for c in conversations for t in c["turns"]]
        for message, facts in questions:
            started = time.perf_counter()
            text = naive.invoke(message)
            naive_latencies.append((time.perf_counter() - started) * 1000)
            naive_hit += sum(bool(re.search(f, text, re.I)) for f in facts)
        runtime.close()
    n = f"{len(unseen)} questions never seen (warmed on {len(warm)} others), memo off"
    return [
        ("chat turn p50, unseen (no LLM)", f"{statistics.median(wall):.1f} ms", f"target <= 15 ms; {n}"),
        ("chat turn p95, unseen", f"{_pct(wall, 0.95):.1f} ms", "target <= 40 ms"),
        ("chat turn max, unseen", f"{max(wall):.1f} ms", ""),
        ("  CPU time p50 / p95, unseen", f"{statistics.median(cpu):.1f} / {_pct(cpu, 0.95):.1f} ms", "this process's CPU: steadier on a shared machine"),
        ("  encoder runs per turn, mean / max", f"{statistics.mean(runs):.2f} / {max(runs)}", "target max <= 2 (only the user's words)"),
        ("chat turn p50, the same questions again", f"{statistics.median(again):.1f} ms", "their vectors cached: not the headline"),
        ("chat turn p50, answer memo on, repeated", f"{statistics.median(memo):.1f} ms", "a lookup of an earlier answer: not the headline"),
        ("chat fact recall", f"{hit / total:.3f}", f"tuned conversation set, {total} facts"),
        ("naive dense LangChain p50", f"{statistics.median(naive_latencies):.1f} ms", "baseline"),
        ("naive dense LangChain p95", f"{_pct(naive_latencies, 0.95):.1f} ms", "baseline"),
        ("naive dense LangChain fact recall", f"{naive_hit / total:.3f}", "baseline (no tools, no composition)"),
    ]
