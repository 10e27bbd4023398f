"""The message as every reader sees it: each run that could make a pattern scan far is cut short first.

The readers are hundreds of patterns. One that starts at every position of a run and scans to its end costs the
square of the run's length: `\\d[\\d,]*` over 4,000 digits took 5.6 s; `[零一二…]+` over a run of Chinese numerals
35 s; full-width digits, which `\\d` also matches, 107 s. Fixing them one at a time keeps missing the next, so the
runs themselves are bounded here, once, before understanding (and anything the pipeline adds later) reads the text:

- a number run (digits of any script, Chinese numerals, and the separators written inside numbers) longer than any
  quantity anyone writes keeps its first MAX_NUMBER_RUN characters and ends in "…";
- one unit (up to MAX_UNIT characters) repeated back to back over more than MIN_REPEATED_CHARS characters is kept
  MAX_REPEATS times: "H100 " × 700, "4090、4090、…", "训练训练…", "!!!!…" (a hex address's "ffffffff" is shorter;
  a number's digits, which repeat too, are already at most MAX_NUMBER_RUN);
- a run without blanks longer than MAX_TOKEN is split with a space, after punctuation where there is some.

The sentence encoder is the one reader whose cost grows faster than the text (0.12 s for 4,000 characters of a log,
0.3 s for 4,000 of mixed scripts): a question is embedded through `embedding_window`, its opening and its end.

Each rule is one linear pass, and ordinary questions and pasted logs (paths, hex addresses, tables) come out
unchanged. Whitespace runs are already one character (pipeline.collapse_whitespace); together these bound how far
any pattern can scan from a position, so a reader's work grows with the message's length, not its square.
"""

from __future__ import annotations

import re

MAX_NUMBER_RUN = 24  # 1,000,000,000,000 is 17 characters; a Unix time with microseconds 17
MAX_UNIT = 16
MAX_REPEATS = 8
MIN_REPEATED_CHARS = 40  # "0xffffffffffffffff" is 16 characters of one
MAX_TOKEN = 200  # the longest run without blanks in the exemplars and evaluation sets is 61 (a Chinese sentence)
CUT = "…"
EMBED_HEAD, EMBED_TAIL = 700, 300  # what the encoder reads of a longer message: the question opens or closes a paste

_NUMERALS = r"\d零〇一二两三四五六七八九十百千万亿"
NUMBER_RUN = re.compile(rf"[{_NUMERALS}][{_NUMERALS},._']*")
REPEATED_UNIT = re.compile(rf"(.{{1,{MAX_UNIT}}}?)\1{{{MAX_REPEATS},}}", re.S)
LONG_TOKEN = re.compile(rf"(?<!\S)\S{{{MAX_TOKEN + 1},}}")
# Where a long run is best split: after a mark that already ends a phrase or a path segment.
_SOFT_BREAK = set("，。；：！？、,;:!?)）]】}>/|")


def bound(text: str) -> str:
    """`text` with long number runs cut, long repeats kept MAX_REPEATS times and long blank-free runs split (in this
    order: a number run is cut before its digits could read as a repeat)."""
    text = NUMBER_RUN.sub(_cut_number, text)
    text = REPEATED_UNIT.sub(_fewer_repeats, text)
    return LONG_TOKEN.sub(_split_token, text)


def _cut_number(run: re.Match[str]) -> str:
    number = run.group()
    return number if len(number) <= MAX_NUMBER_RUN else number[:MAX_NUMBER_RUN] + CUT


def _fewer_repeats(run: re.Match[str]) -> str:
    return run.group() if len(run.group()) < MIN_REPEATED_CHARS else run.group(1) * MAX_REPEATS


def _split_token(run: re.Match[str]) -> str:
    token, pieces = run.group(), []
    while len(token) > MAX_TOKEN:
        window = token[:MAX_TOKEN]
        cut = next((i + 1 for i in range(MAX_TOKEN - 1, MAX_TOKEN // 2, -1) if window[i] in _SOFT_BREAK), MAX_TOKEN)
        pieces.append(token[:cut])
        token = token[cut:]
    return " ".join([*pieces, token])


def embedding_window(text: str) -> str:
    """What the sentence encoder reads of a question: all of it up to EMBED_HEAD + EMBED_TAIL characters, else its
    opening and its end ("here is my log: … what is wrong?")."""
    if len(text) <= EMBED_HEAD + EMBED_TAIL:
        return text
    return f"{text[:EMBED_HEAD]} {CUT} {text[-EMBED_TAIL:]}"
