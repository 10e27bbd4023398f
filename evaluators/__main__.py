"""`make eval`: the sizing, retrieval and assistant evaluations, one after the other."""

from __future__ import annotations

import sys

from evaluators import assistant_eval, retrieval_eval, sizing_eval


def main() -> int:
    status = 0
    for name, module in (("sizing", sizing_eval), ("retrieval", retrieval_eval), ("assistant", assistant_eval)):
        print(f"\n== {name} evaluation ==", flush=True)
        status |= module.main([]) or 0
    return status


if __name__ == "__main__":
    sys.exit(main())
