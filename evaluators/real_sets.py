"""Real-question sets: questions found in public issue trackers, forums and Q&A threads.

Two kinds live under evaluators/datasets/real/:

- dev/*.jsonl — the development set. Read it, run it, learn general gaps from it (never copy a
  question into exemplars or knowledge text).
- sealed/<name>.sealed — a sealed set, collected by someone who never saw the development set. The
  file is the JSONL compressed and base64-encoded so that nobody reads it by accident (grep, an
  editor, a diff); `<name>.manifest.json` records its SHA-256, size and language mix, and
  `<name>.sources` the SHA-256 of each thread's address, so that collectors of other sets can
  leave those threads out without reading the set. It is opened only to be scored.

Each line is one thread: {"id", "lang": "en"|"zh", "category", "source" (the thread's address),
"title", "turns": [{"user", "expect": "answer"}], "accepted_answer", "key_points": [...],
"must": [[alternatives], ...], "rubric": {"2", "1", "0"}}; see datasets/real/FORMAT.md.

    python -m evaluators.real_sets validate FILE.jsonl
    python -m evaluators.real_sets seal --name sealed_real_1 --from FILE.jsonl
    python -m evaluators.real_sets url-hash URL
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

REAL_DIR = Path(__file__).parent / "datasets" / "real"
DEV_DIR = REAL_DIR / "dev"
SEALED_DIR = REAL_DIR / "sealed"
CATEGORIES = {"faq", "spec", "sizing", "recommend", "fit", "inference", "compare", "cloud_vs_onprem", "claim_check",
              "diagnostics", "preflight"}
REQUIRED = ("id", "lang", "category", "source", "turns", "accepted_answer", "key_points", "must", "rubric")


def normalise_url(url: str) -> str:
    """One spelling per thread: no scheme, no fragment, no trailing slash, lower case."""
    url = url.strip().split("#", 1)[0].rstrip("/").lower()
    for prefix in ("https://", "http://", "www."):
        url = url.removeprefix(prefix)
    return url


def url_hash(url: str) -> str:
    return hashlib.sha256(normalise_url(url).encode()).hexdigest()


def problems_of(item: dict[str, Any]) -> list[str]:
    """What is wrong with one line (empty when it is well formed)."""
    found = [f"missing {key}" for key in REQUIRED if key not in item]
    if found:
        return found
    if item["lang"] not in ("en", "zh"):
        found.append(f"lang {item['lang']!r} is not en or zh")
    if item["category"] not in CATEGORIES:
        found.append(f"category {item['category']!r} is not one of {sorted(CATEGORIES)}")
    if not str(item["source"]).startswith("http"):
        found.append("source is not an address")
    turns = item["turns"]
    if not isinstance(turns, list) or not turns or not all(isinstance(t, dict) and str(t.get("user", "")).strip() for t in turns):
        found.append("turns must be a non-empty list of {user: ...}")
    if not isinstance(item["key_points"], list) or not item["key_points"]:
        found.append("key_points must be a non-empty list")
    must = item["must"]
    if not isinstance(must, list) or not all(isinstance(g, list) and g and all(isinstance(a, str) and a for a in g) for g in must):
        found.append("must must be a list of non-empty lists of strings")
    rubric = item["rubric"]
    if not isinstance(rubric, dict) or set(rubric) != {"0", "1", "2"}:
        found.append("rubric must have exactly the keys 0, 1 and 2")
    return found


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def validate(items: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    seen_ids: set[str] = set()
    seen_sources: set[str] = set()
    for n, item in enumerate(items, 1):
        problems += [f"line {n} ({item.get('id', '?')}): {p}" for p in problems_of(item)]
        if item.get("id") in seen_ids:
            problems.append(f"line {n}: id {item.get('id')} repeated")
        seen_ids.add(item.get("id"))
        source = normalise_url(str(item.get("source", "")))
        if source in seen_sources:
            problems.append(f"line {n}: source {item.get('source')} repeated")
        seen_sources.add(source)
    return problems


def sealed_hashes() -> set[str]:
    """The thread hashes of every sealed set: a development collector leaves these threads out."""
    return {line.strip() for path in SEALED_DIR.glob("*.sources") for line in path.read_text().splitlines() if line.strip()}


def seal(name: str, items: list[dict[str, Any]]) -> Path:
    SEALED_DIR.mkdir(parents=True, exist_ok=True)
    payload = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items).encode("utf-8")
    target = SEALED_DIR / f"{name}.sealed"
    target.write_text(base64.b64encode(zlib.compress(payload, 9)).decode("ascii") + "\n", encoding="ascii")
    (SEALED_DIR / f"{name}.sources").write_text("".join(sorted(url_hash(i["source"]) + "\n" for i in items)), encoding="ascii")
    languages = Counter(i["lang"] for i in items)
    categories = Counter(i["category"] for i in items)
    manifest = {"name": name, "sha256": hashlib.sha256(payload).hexdigest(), "items": len(items), "languages": dict(languages),
                "categories": dict(sorted(categories.items())),
                "note": "Sealed: opened only to be scored (evaluators.real_eval). Do not decode it to read."}
    (SEALED_DIR / f"{name}.manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return target


def unseal(name: str) -> list[dict[str, Any]]:
    """The sealed set's lines, checked against the manifest. Only the scorer calls this."""
    raw = zlib.decompress(base64.b64decode((SEALED_DIR / f"{name}.sealed").read_text(encoding="ascii")))
    manifest = json.loads((SEALED_DIR / f"{name}.manifest.json").read_text(encoding="utf-8"))
    if hashlib.sha256(raw).hexdigest() != manifest["sha256"]:
        raise ValueError(f"{name}.sealed does not match its manifest: the set was changed after it was sealed")
    return [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]


def dev_items() -> list[dict[str, Any]]:
    return [item for path in sorted(DEV_DIR.glob("*.jsonl")) for item in read_lines(path)]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("validate")
    check.add_argument("file", type=Path)
    sealing = sub.add_parser("seal")
    sealing.add_argument("--name", required=True)
    sealing.add_argument("--from", dest="source", type=Path, required=True)
    hashing = sub.add_parser("url-hash")
    hashing.add_argument("url")
    args = parser.parse_args(argv)
    if args.command == "url-hash":
        print(url_hash(args.url))
        return 0
    items = read_lines(args.source if args.command == "seal" else args.file)
    problems = validate(items)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 2
    if args.command == "seal":
        print(f"sealed {len(items)} items -> {seal(args.name, items)}")
    else:
        langs = Counter(i["lang"] for i in items)
        print(f"{len(items)} items, well formed; {dict(langs)}; {dict(Counter(i['category'] for i in items))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
