"""Deterministic generator of hostile chat messages: what an attacker sends to make one message cost seconds of CPU.

Families (each message at most `limit` characters, the service's message limit):

- repeated catalog names, back to back and with every common separator ("4090" × 1,000, "H100,H100,…", "A100-80GB、…");
- digit runs (random, one digit, a number repeated), numbers with every separator and unit ("1,234,567", "3.5万", "8卡", "$2.5/GPU-hr");
- CJK and emoji runs (one character, a word, numerals, emoji with joiners and skin tones);
- pasted logs of about 100 KB (NCCL, tracebacks, nvidia-smi, dmesg, with long paths and hex addresses) cut to the limit;
- mixed-script junk, long tokens without blanks (paths, base64, hex dumps) and each of these wrapped in a real question.

`generate(limit, seed)` returns the same list for the same arguments. The test (tests/assistant/test_bounded_work.py)
counts the work each one costs; `make bench` (bench/bench_hostile.py) times them, alone and under load.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

NAMES = ("4090", "H100", "A100 80GB", "A100-80GB", "RTX 4090", "H20", "Llama-3-70B", "Qwen-14B", "p5.48xlarge", "910B", "L40S", "qwen")
SEPARATORS = ("", " ", ",", "-", "/", "x", "、", "，", " vs ", "\n")
UNITS = ("", "k", "K", "万", "亿", "B", "GB", "%", "卡", "张", " tokens", "小时", "天", "/s", "台", "x")
NUMBER_SEPARATORS = (",", ".", "_", "'", "，", " ", "")
CJK = ("训练", "卡", "万", "一二三四五六七八九十", "显存不够怎么办", "多少", "张卡", "百千万亿")
EMOJI = ("🚀", "👍🏽", "👨‍👩‍👧‍👦", "🔥💯", "🇨🇳", "😀")
QUESTIONS = ("8张H100训练7B要多久？", "How many A100s to fine-tune Llama-3-70B in a day?")


@dataclass(frozen=True)
class HostileInput:
    family: str
    name: str
    message: str


def _fill(unit: str, limit: int) -> str:
    return (unit * (limit // max(1, len(unit)) + 1))[:limit]


def _digits(rng: random.Random, n: int, alphabet: str = "0123456789") -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _log(rng: random.Random, size: int = 100_000) -> str:
    """About `size` characters of a training job's log: the kinds of lines users paste, with long paths and addresses."""
    lines: list[str] = []
    total = 0
    while total < size:
        rank, node = rng.randrange(512), rng.randrange(64)
        kind = rng.randrange(7)
        if kind == 0:
            line = (f"node{node:03d}:{rng.randrange(99999)}:{rng.randrange(99999)} [{rank % 8}] NCCL INFO Channel {rng.randrange(32):02d}/0 : "
                    f"{rank} -> {(rank + 1) % 512} via NET/IB/{rng.randrange(8)}/GDRDMA")
        elif kind == 1:
            line = (f'  File "/home/user/miniconda3/envs/train/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/'
                    f'errors/__init__.py", line {rng.randrange(9999)}, in wrapper')
        elif kind == 2:
            line = f"[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={rng.randrange(10**6)}, OpType=ALLREDUCE, " \
                   f"NumelIn={rng.randrange(10**9)}, Timeout(ms)=600000) ran for {rng.randrange(600000, 700000)} milliseconds before timing out."
        elif kind == 3:
            line = f"[{rng.uniform(0, 99999):12.6f}] NVRM: Xid (PCI:0000:{rng.randrange(256):02x}:00): 79, pid={rng.randrange(99999)}, " \
                   f"GPU has fallen off the bus. addr 0x{rng.getrandbits(64):016x}"
        elif kind == 4:
            line = f"|   {rank % 8}  NVIDIA H100 80GB HBM3          On  | 00000000:{rng.randrange(256):02X}:00.0 Off |                    0 |"
        elif kind == 5:
            line = f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {rng.uniform(1, 80):.2f} GiB. GPU {rank % 8} has a total " \
                   f"capacity of 79.11 GiB of which {rng.uniform(0, 2):.2f} GiB is free."
        else:
            line = f"{rng.randrange(10**9):09d} step={rng.randrange(10**6)} loss={rng.uniform(0, 12):.6f} lr={rng.uniform(0, 1e-3):.3e} " \
                   f"grad_norm={rng.uniform(0, 100):.4f} tokens/s={rng.randrange(10**6)} mfu={rng.uniform(0, 0.6):.4f}"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def _junk(rng: random.Random, n: int) -> str:
    pools = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", ",.;:!?-_/\\|()[]{}<>@#$%^&*+=~`'\"",
             "训练显存卡张万亿多少的了吗", "абвгдежзийклмн", "ابتثجحخد", "αβγδεζηθ", "ｈ１００，。！？", "🚀😀🔥", "\u200b\u200d\ufeff")
    return "".join(rng.choice(rng.choice(pools)) for _ in range(n))


def generate(limit: int = 4000, seed: int = 28) -> list[HostileInput]:
    rng = random.Random(seed)
    out: list[HostileInput] = []

    def add(family: str, name: str, message: str) -> None:
        out.append(HostileInput(family, name, message[:limit]))

    for name in NAMES:
        for sep in SEPARATORS:
            add("repeated_names", f"{name!r}×{sep!r}", _fill(name + sep, limit))
    for length in (limit, limit // 2, 64):
        add("digits", f"random-{length}", _digits(rng, length))
    for digit in "08":
        add("digits", f"same-{digit}", digit * limit)
    add("digits", "arabic-indic", _digits(rng, limit, "٠١٢٣٤٥٦٧٨٩"))
    add("digits", "full-width", _digits(rng, limit, "０１２３４５６７８９"))
    for number in ("12345", "8", "1.5e12", "0.001", "3000000000000"):
        for sep in (" ", "", ","):
            add("repeated_numbers", f"{number!r}×{sep!r}", _fill(number + sep, limit))
    for sep in NUMBER_SEPARATORS:
        groups = [_digits(rng, 3) for _ in range(limit // 3)]
        add("number_separators", f"groups-{sep!r}", "1" + sep.join(groups))
    for unit in UNITS:
        add("numbers_with_units", f"unit-{unit!r}", _fill(f"{rng.randrange(1, 10**6)}{unit} ", limit))
        add("numbers_with_units", f"glued-{unit!r}", _fill(f"{rng.randrange(1, 999)}{unit}", limit))
    for text in ("$2.5/GPU-hr ", "¥9.8/卡时", "-8 H100 ", "8x", "1e9999 ", "24/7 ", "80%利用率 ", "2,000 DAU "):
        add("numbers_with_units", f"phrase-{text!r}", _fill(text, limit))
    for text in CJK:
        add("cjk", f"cjk-{text}", _fill(text, limit))
    for text in EMOJI:
        add("emoji", f"emoji-{text}", _fill(text, limit))
    add("cjk", "cjk-random", "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(limit)))
    log = _log(rng)
    for start in (0, len(log) // 3, len(log) - limit):
        add("pasted_log", f"log-at-{start}", log[start:])
    add("pasted_log", "log-in-fence", "训练挂了，日志如下：\n```\n" + log)
    add("pasted_log", "log-then-question", log[: limit - 40] + "\nwhat is wrong?")
    for n in (limit, 800, 200):
        add("junk", f"mixed-{n}", _junk(rng, n))
    add("long_tokens", "path", _fill("/home/user/miniconda3/envs/train/lib/python3.10/site-packages", limit))
    add("long_tokens", "base64", "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(limit)))
    add("long_tokens", "hex", "0x" + _digits(rng, limit - 2, "0123456789abcdef"))
    add("long_tokens", "letters", _fill("a", limit))
    add("long_tokens", "dashes", _fill("-", limit))
    add("long_tokens", "punctuation", _fill("?!.,;:", limit))
    base = list(out)
    for index, item in enumerate(base[:: max(1, len(base) // 24)]):
        question = QUESTIONS[index % 2]
        add("wrapped", f"{item.name}-in-question", question + " " + item.message[: limit - 2 * len(question) - 2] + " " + question)
    return out
