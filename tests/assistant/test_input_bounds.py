"""The message as the readers see it (service/assistant/input_bounds.py): long runs cut, everything ordinary unchanged."""

from __future__ import annotations

import random
import re

import pytest

from evaluators.fuzz_questions import generate as fuzz_questions
from evaluators.hostile_inputs import generate as hostile_inputs
from service.assistant.input_bounds import (
    CUT,
    EMBED_HEAD,
    EMBED_TAIL,
    MAX_NUMBER_RUN,
    MAX_REPEATS,
    MAX_TOKEN,
    MIN_REPEATED_CHARS,
    REPEATED_UNIT,
    bound,
    embedding_window,
)
from service.assistant.pipeline import collapse_whitespace
from service.understanding.registry import load_registry

NUMBER_RUN = re.compile(r"[\d零〇一二两三四五六七八九十百千万亿][\d零〇一二两三四五六七八九十百千万亿,._']*")


def _pasted_log(rng: random.Random, lines: int = 60) -> str:
    """A real user's paste: a traceback with long paths, NCCL lines, hex addresses and an nvidia-smi table row."""
    out = ["我们 2 机 16 卡 H100 训练 Llama-3-70B，跑到一半挂了，日志如下："]
    for i in range(lines):
        out.append(rng.choice([
            f'  File "/home/alice/miniconda3/envs/train/lib/python3.10/site-packages/torch/distributed/elastic/agent/server/api.py", line {i * 7}',
            f"node{i % 4:02d}:{40000 + i}:{40100 + i} [{i % 8}] NCCL INFO Channel {i % 32:02d}/0 : {i} -> {i + 1} via NET/IB/0/GDRDMA",
            f"[Rank {i}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={12345 + i}, OpType=ALLREDUCE) ran for 600123 milliseconds",
            f"NVRM: Xid (PCI:0000:{i:02x}:00): 79, pid={3000 + i}, GPU has fallen off the bus. addr 0x00007f3a{i:08x}",
            f"|   {i % 8}  NVIDIA H100 80GB HBM3          On  | 00000000:{i:02X}:00.0 Off |                    0 |",
        ]))
    out.append("这是什么问题？")
    return "\n".join(out)


def test_ordinary_questions_and_pastes_are_read_as_written() -> None:
    rng = random.Random(7)
    texts = [e.text for e in load_registry().exemplars] + [t for item in fuzz_questions(600, seed=11) for t in item.turns]
    texts += [_pasted_log(rng) for _ in range(20)]
    texts += ["训练 15,000,000,000,000 tokens 要多久", "1700000000.000001", "上下文 128k，1.5e12 token，预算 3000000 元", "0x" + "f" * 16]
    for text in map(collapse_whitespace, texts):
        assert bound(text) == text


@pytest.mark.parametrize("run", ["7" * 4000, "１２３" * 1300, "٣" * 4000, "一二三四五六七八九十" * 400, "1" + ",234" * 900, "1.0." * 1000])
def test_a_number_run_is_cut_after_its_first_characters(run: str) -> None:
    bounded = bound(f"训练 {run} tokens")
    assert bounded == f"训练 {run[:MAX_NUMBER_RUN]}{CUT} tokens"


@pytest.mark.parametrize(("message", "unit"), [
    ("H100 " * 700, "H100 "), ("4090、" * 600, "4090、"), ("训练" * 2000, "训练"), ("Llama-3-70B\n" * 300, "Llama-3-70B\n"),
    ("!" * 4000, "!"), ("12345 " * 600, "12345 "),
])
def test_a_unit_repeated_back_to_back_is_kept_a_few_times(message: str, unit: str) -> None:
    assert bound(message) == unit * MAX_REPEATS


def test_the_digits_of_one_number_and_a_hex_address_are_not_a_repeat() -> None:
    text = "3000000000000 tokens, 100000000000000000000 个, addr 0xffffffffffffffff, ====== done"
    assert bound(text) == text


def test_a_long_run_without_blanks_is_split_after_punctuation_where_it_has_some() -> None:
    rng = random.Random(5)
    sentences = ["我们想用八张卡微调一个模型，", "数据大概五十万条，", "希望一天之内训完。", "预算有限；", "显存够不够？"]
    prose = "".join(rng.choice(sentences) for _ in range(120))  # Chinese writes no blanks: one run of ~1,200 characters
    pieces = bound(prose).split(" ")
    assert len(pieces) > 5 and "".join(pieces) == prose
    assert all(len(piece) <= MAX_TOKEN and piece[-1] in "，。；？" for piece in pieces[:-1])
    base64 = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+") for _ in range(1000))
    assert [len(t) for t in bound(base64).split(" ")] == [MAX_TOKEN] * 5


def test_every_hostile_input_comes_out_within_the_bounds() -> None:
    for item in hostile_inputs():
        bounded = bound(collapse_whitespace(item.message))
        assert max(map(len, NUMBER_RUN.findall(bounded)), default=0) <= MAX_NUMBER_RUN, item.name
        assert max(map(len, bounded.split()), default=0) <= MAX_TOKEN, item.name
        assert all(len(run.group()) < MIN_REPEATED_CHARS for run in REPEATED_UNIT.finditer(bounded)), item.name


def test_the_encoder_reads_a_long_message_by_its_opening_and_its_end() -> None:
    short = "x" * (EMBED_HEAD + EMBED_TAIL)
    assert embedding_window(short) == short
    paste = "Here is my NCCL log: " + "NCCL INFO ring 0 " * 300 + " so what is wrong?"
    window = embedding_window(paste)
    assert window.startswith("Here is my NCCL log:") and window.endswith("so what is wrong?") and len(window) < EMBED_HEAD + EMBED_TAIL + 5
