"""Run every bench/bench_*.py module's `run()` and print its figures.

Each module's `run()` returns a list of rows: (name, figure, target) where
figure and target are already-formatted strings (target may be "").
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import time

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str]) -> int:
    import bench

    only = set(argv)
    names = sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_"))
    failed = False
    for name in names:
        if only and name.removeprefix("bench_") not in only:
            continue
        module = importlib.import_module(f"bench.{name}")
        started = time.perf_counter()
        print(f"\n== {name.removeprefix('bench_')} ==", flush=True)
        try:
            rows = module.run()
        except Exception as exc:  # a broken benchmark is reported, the rest still run
            print(f"  FAILED: {exc!r}")
            failed = True
            continue
        width = max((len(r[0]) for r in rows), default=10)
        for row in rows:
            name_, figure, target = (list(row) + [""])[:3]
            print(f"  {name_:<{width}}  {figure:>14}  {target}")
        print(f"  ({time.perf_counter() - started:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
