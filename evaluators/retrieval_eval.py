"""Retrieval quality on the labelled question sets: recall@1, recall@5, MRR and nDCG@10.

    python -m evaluators.retrieval_eval [--backend sentence-transformers] [--json reports/retrieval.json] [--misses]

Questions come from evaluators/datasets/retrieval_queries.*.jsonl, one JSON object a line:
{"id", "query", "group": zh|en|mixed|cross, "target_language": zh|en|null, "relevant": [doc ids]}.
Ranking is by document: a document's rank is the rank of its first chunk, so two
sections of one document do not push a third document down. "cross" questions
are searched with language=target_language (ask in one language, read the other).

The index is built (incrementally) in <data_dir>/eval-index/<backend>, beside
and never instead of the service's own index.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from evaluators.jsonl import read_jsonl
from service.retrieval import KnowledgeIndex

DATASETS = Path(__file__).resolve().parent / "datasets"
GROUPS = ("zh", "en", "mixed", "cross")
MODES = ("dense", "bm25", "hybrid")
METRICS = ("recall@1", "recall@5", "mrr", "ndcg@10")
# Chunks fetched per question before collapsing them to documents.
FETCH = 50


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    group: str
    target_language: str | None
    relevant: frozenset[str]
    source: str


def load_questions(directory: Path = DATASETS) -> list[Question]:
    questions: list[Question] = []
    seen: set[str] = set()
    for path in sorted(directory.glob("retrieval_queries.*.jsonl")):
        for where, raw in read_jsonl(path):
            question = Question(
                id=str(raw.get("id", "")),
                query=str(raw.get("query", "")),
                group=str(raw.get("group", "")),
                target_language=raw.get("target_language"),
                relevant=frozenset(raw.get("relevant") or ()),
                source=where,
            )
            problem = _problem(question, seen)
            if problem:
                raise ValueError(f"{where}: {problem}")
            seen.add(question.id)
            questions.append(question)
    return questions


def _problem(q: Question, seen: set[str]) -> str | None:
    if not q.id or q.id in seen:
        return f"missing or duplicate id '{q.id}'"
    if not q.query.strip():
        return "empty query"
    if q.group not in GROUPS:
        return f"group must be one of {', '.join(GROUPS)}"
    if q.group == "cross" and q.target_language not in ("zh", "en"):
        return "a cross question needs target_language zh or en"
    if not q.relevant:
        return "no relevant document ids"
    return None


def document_ranking(index: KnowledgeIndex, q: Question, mode: str) -> list[str]:
    language = q.target_language if q.group == "cross" else None
    hits = index.search(q.query, k=FETCH, language=language, mode=mode)  # type: ignore[arg-type]
    return list(dict.fromkeys(hit.doc_id for hit in hits))


def score(ranking: list[str], relevant: frozenset[str]) -> dict[str, float]:
    first = next((rank for rank, doc in enumerate(ranking, start=1) if doc in relevant), None)
    dcg = sum(1 / math.log2(rank + 1) for rank, doc in enumerate(ranking[:10], start=1) if doc in relevant)
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(len(relevant), 10) + 1))
    return {
        "recall@1": float(first == 1),
        "recall@5": float(first is not None and first <= 5),
        "mrr": 1 / first if first else 0.0,
        "ndcg@10": dcg / ideal,
    }


def evaluate(index: KnowledgeIndex, questions: Iterable[Question]) -> dict:
    """{"groups": {group: {mode: {metric: value}, "n": count}}, "misses": [...]} over every mode."""
    per_question: dict[str, dict[str, dict[str, float]]] = {}
    misses = []
    questions = list(questions)
    for q in questions:
        per_question[q.id] = {}
        for mode in MODES:
            ranking = document_ranking(index, q, mode)
            per_question[q.id][mode] = score(ranking, q.relevant)
            if mode == "hybrid" and per_question[q.id][mode]["recall@5"] < 1:
                misses.append({"id": q.id, "group": q.group, "query": q.query, "relevant": sorted(q.relevant), "top5": ranking[:5]})
    groups: dict[str, dict] = {}
    for group in (*GROUPS, "all"):
        members = [q for q in questions if group in (q.group, "all")]
        if not members:
            continue
        groups[group] = {"n": len(members)}
        for mode in MODES:
            groups[group][mode] = {m: round(mean(per_question[q.id][mode][m] for q in members), 4) for m in METRICS}
    return {"info": index.info, "groups": groups, "misses": misses}


def print_table(result: dict, title: str) -> None:
    """One row per group and mode, so the three modes of a group sit next to each other."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for name in ("group", "n", "mode", *METRICS):
        table.add_column(name, justify="left" if name in ("group", "mode") else "right")
    for group, row in result["groups"].items():
        for position, mode in enumerate(MODES):
            cells = [f"{row[mode][metric]:.3f}" for metric in METRICS]
            last = position == len(MODES) - 1
            table.add_row(group if position == 0 else "", str(row["n"]) if position == 0 else "", mode, *cells, end_section=last)
    Console().print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluators.retrieval_eval", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("use-multilingual", "sentence-transformers"), help="embedder (default: from settings)")
    parser.add_argument("--model-path", type=Path, help="sentence-transformers model directory")
    parser.add_argument("--json", type=Path, help="also write the result as JSON, e.g. reports/retrieval_eval.json")
    parser.add_argument("--misses", action="store_true", help="list the questions hybrid search misses at 5")
    args = parser.parse_args(argv)

    from service.catalog import default_catalog
    from service.config import get_settings
    from service.retrieval import ingest, open_index

    settings = get_settings()
    overrides: dict[str, object] = {}
    if args.backend:
        overrides["embedding_backend"] = args.backend
    if args.model_path:
        overrides["embedding_model_path"] = args.model_path
    backend = args.backend or settings.embedding_backend
    eval_settings = settings.model_copy(update={**overrides, "data_dir": settings.data_dir / "eval-index" / backend, "chroma_url": None})
    catalog = default_catalog(eval_settings.knowledge_dir)
    ingest(eval_settings, catalog, progress=True)  # incremental: evaluate today's documents, not a stale index
    index = open_index(eval_settings, catalog)
    result = evaluate(index, load_questions())
    print_table(result, f"Retrieval evaluation ({backend}, {index.info['chunks']} chunks, {index.info['questions']} section questions)")
    if args.misses:
        for miss in result["misses"]:
            print(f"  miss [{miss['group']}] {miss['id']}: {miss['query']}  relevant={miss['relevant']} top5={miss['top5']}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=2), encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
