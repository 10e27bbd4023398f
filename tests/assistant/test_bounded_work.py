"""No message costs more than it is worth: every generated hostile message (evaluators/hostile_inputs.py) is answered
with work that grows with its length, counted rather than timed (time is in `make bench`: bench/bench_hostile.py).

Two counts, each deterministic:

- the text every reader sees has no number run, repeat or blank-free run past its bound (input_bounds.py), which
  bounds how far a pattern can scan from any one position;
- the characters handed to the service's patterns in the turn (tests/assistant/metered_turns.py meters every pattern
  compiled from a service module): per character of the message, a hostile message may cost at most twice what a
  long legitimate paste costs, and a short one no more than twice the dearest ordinary question. A reader that
  rescans the message per name, per match or per spelling multiplies this count.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from evaluators.hostile_inputs import generate
from service.assistant.input_bounds import MAX_NUMBER_RUN, MAX_TOKEN, MIN_REPEATED_CHARS, REPEATED_UNIT
from tests.assistant.test_input_bounds import _pasted_log
from tests.assistant.test_input_patterns import WARM_UP

REPOSITORY = Path(__file__).resolve().parents[2]
NUMBER_RUN = re.compile(r"[\d零〇一二两三四五六七八九十百千万亿][\d零〇一二两三四五六七八九十百千万亿,._']*")
ORDINARY = ("训练到一半断电了怎么办？", "Qwen-14B 全参微调，50万条样本，24小时内完成，需要什么配置？", "有文章说64台8卡H100服务器10天就能完成LLaMA-3 70B预训练，靠谱吗？",
            "新到了两台8卡H100，上线前要做哪些检查？", "年利用率80%，自建还是上云？", "What does ZeRO-3 shard, and when is FSDP slower?")


def _long_legitimate() -> list[str]:
    rng = random.Random(11)
    sentences = ["我们想用八张卡微调一个模型，", "数据大概五十万条，每条两千 token，", "希望一天之内训完。", "预算有限；", "显存够不够？", "要不要开 ZeRO-3？"]
    return [_pasted_log(rng, lines=40), _pasted_log(rng, lines=25), "".join(rng.choice(sentences) for _ in range(60))]


@pytest.fixture(scope="module")
def measured(module_data_dir: Path) -> dict[str, list[dict]]:
    groups = {"ordinary": list(ORDINARY), "long": _long_legitimate(), "hostile": [i.message for i in generate()]}
    lines = [{"message": q, "warm_up": True} for q in WARM_UP] + [{"message": m} for group in groups.values() for m in group]
    run = subprocess.run([sys.executable, "-m", "tests.assistant.metered_turns", str(module_data_dir)], cwd=REPOSITORY, text=True,
                         input="\n".join(json.dumps(line, ensure_ascii=False) for line in lines), capture_output=True, timeout=1200)
    assert run.returncode == 0, run.stderr[-3000:]
    results = iter(json.loads(line) for line in run.stdout.splitlines())
    return {name: [next(results) for _ in group] for name, group in groups.items()}


def test_the_generator_is_deterministic_and_covers_every_family() -> None:
    items = generate()
    assert items == generate() and items != generate(seed=3)
    assert Counter(i.family for i in items).keys() >= {"repeated_names", "digits", "repeated_numbers", "number_separators", "numbers_with_units",
                                                       "cjk", "emoji", "pasted_log", "junk", "long_tokens", "wrapped"}
    assert all(len(i.message) <= 4000 for i in items) and len({i.name for i in items}) == len(items) > 200


def test_every_hostile_message_is_read_within_the_bounds(measured) -> None:
    for item, work in zip(generate(), measured["hostile"], strict=True):
        text = work["text"]
        assert work["answered"] and work["ungrounded"] == [], item.name
        assert max(map(len, NUMBER_RUN.findall(text)), default=0) <= MAX_NUMBER_RUN, item.name
        assert max(map(len, text.split()), default=0) <= MAX_TOKEN, item.name
        assert all(len(run.group()) < MIN_REPEATED_CHARS for run in REPEATED_UNIT.finditer(text)), item.name


def test_every_hostile_message_costs_what_its_length_is_worth(measured) -> None:
    per_char = max(w["scanned"] / len(w["text"]) for w in measured["long"])
    ordinary = max(w["scanned"] for w in measured["ordinary"])
    assert 50 < per_char and 10_000 < ordinary  # the meter saw the readers
    over = [f"{item.name}: {w['scanned']:,} characters scanned for {len(w['text'])} (at most {2 * max(ordinary, per_char * len(w['text'])):,.0f})"
            for item, w in zip(generate(), measured["hostile"], strict=True) if w["scanned"] > 2 * max(ordinary, per_char * len(w["text"]))]
    assert not over, "\n".join(over)
