"""Words for BM25 and snippets: jieba for Chinese, lowercase words and numbers for Latin text.

Latin compounds such as "p5.48xlarge" or "a100-80g" are kept whole and also
split into their parts, so "A100" in a question matches "A100-80G" in a card.
"""

from __future__ import annotations

import functools
import logging
import marshal
import os
import re
import tempfile
import threading
import time
import unicodedata

import jieba

from service.retrieval.terms import TERMS_ZH
from service import budget

SNIPPET_CHARS = 240
_CJK_RUN = r"[\u3400-\u9fff\uf900-\ufaff]+"
_LATIN_RUN = r"[a-z0-9]+(?:[._+/\-][a-z0-9]+)*"  # joiners . _ + / - keep Standard_ND96isr_H100_v5 whole
_RUNS = re.compile(f"({_CJK_RUN})|({_LATIN_RUN})")
_PARTS = re.compile(r"[a-z0-9]+")
_HAS_LETTER = re.compile(r"[a-z]")
# A word with a version number glued on ("sxm5", "hbm3", "nvlink4", "llama3") also matches the bare word.
_VERSIONED = re.compile(r"^([a-z]{3,})\d+$")

STOPWORDS_EN = frozenset(
    "a an the and or but of to in on at by for from with without into onto over under about as is are was were be "
    "been being do does did doing have has had having i me my we our you your it its this that these those there "
    "here what which who whom whose when where why how can could should would will shall may might must not no "
    "if then than so such very just also any all each some more most much many other only own same too up down "
    "out off again further once per via vs".split()
)
STOPWORDS_ZH = frozenset(
    "的 了 是 吗 呢 吧 啊 呀 和 与 及 或 在 有 我 我们 你 你们 他 她 它 这 那 这个 那个 这些 那些 怎么 怎样 如何 "
    "什么 哪些 哪个 为什么 多少 几 个 一个 一下 要 会 能 可以 就 都 也 还 把 被 让 给 对 从 到 用 以 及其 而 "
    "并 等 中 上 下 里 时 时候 之 其 该 请问 请 "
    # adverbs and particles of spoken questions ("老是上不去", "到底要不要")
    "不 没 没有 很 太 更 最 又 再 还是 就是 只是 但是 可是 因为 所以 如果 虽然 而且 或者 一直 总是 老是 经常 已经 "
    "正在 一会儿 一会 会儿 一些 有些 有点 到底 究竟 真的 其实 应该 能否 是否 能不能 会不会 是不是 有没有 要不要 "
    "怎么办 怎么样 为何 哪里 那么 这么 这样 那样 自己 大家 啥 咋 么 得 地 着 过".split()
)

# A tokenizer of our own, so the technical terms do not change jieba's global one for other users.
_segmenter = jieba.Tokenizer()
_segmenter_lock = threading.Lock()
_segmenter_ready = False


def _ensure_jieba() -> None:
    """Load jieba's dictionary once, quietly, with our technical terms added."""
    global _segmenter_ready
    if _segmenter_ready:
        return
    with _segmenter_lock:
        if _segmenter_ready:
            return
        jieba.setLogLevel(logging.WARNING)  # it announces dictionary loading on stderr otherwise
        with budget.not_charged():  # the process's work (about 0.3 s), not the first question's
            _load_prefix_dictionary(_segmenter)
        for term in TERMS_ZH:
            _segmenter.add_word(term)
        _segmenter_ready = True


_CHUNK_WORDS = 20_000  # a chunk's marshal.loads holds the GIL about 10 ms


def _chunked_cache_path(tokenizer: jieba.Tokenizer) -> str:
    return os.path.join(tokenizer.tmp_dir or tempfile.gettempdir(), f"advisor-jieba-{jieba.__version__}.cache")


def _load_prefix_dictionary(tokenizer: jieba.Tokenizer) -> None:
    """jieba's default prefix dictionary (500,000 words), loaded without holding the GIL for long.

    jieba's initialize() marshal.load()s its cache file piece by piece: about 0.7 s, all of it holding the GIL, so a
    server loading it after ready answered no probe meanwhile. Here the same (FREQ, total) come from a cache of our own
    beside jieba's, in chunks of 20,000 words, one marshal.loads each with a switch to other threads between: about
    0.25 s in all, no piece longer than about 10 ms. That cache is written once from jieba's own (read as one bytes
    object), or from initialize() when jieba has none yet. Another dictionary, a cache file jieba was told to use, or
    any failure is left to initialize() as before."""
    if tokenizer.dictionary is not jieba.DEFAULT_DICT or tokenizer.cache_file:
        tokenizer.initialize()
        return
    path = _chunked_cache_path(tokenizer)
    loaded = _read_chunked(path)
    if loaded is None:
        loaded = _read_jiebas_cache(tokenizer)
        if loaded is None:
            tokenizer.initialize()  # builds the prefix dictionary and writes jieba's cache
            loaded = (tokenizer.FREQ, tokenizer.total)
        _write_chunked(path, *loaded)
    with tokenizer.lock:
        if not tokenizer.initialized:
            tokenizer.FREQ, tokenizer.total, tokenizer.initialized = loaded[0], loaded[1], True


def _read_chunked(path: str) -> tuple[dict[str, int], int] | None:
    try:
        with open(path, "rb") as handle:
            version, total, parts = marshal.loads(handle.read())
        if version != 1 or not isinstance(total, int) or not isinstance(parts, list) or not parts:
            return None
        freq: dict[str, int] = {}
        for part in parts:
            freq.update(marshal.loads(part))
            time.sleep(0)  # let the event loop and request threads run between chunks
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return freq, total


def _read_jiebas_cache(tokenizer: jieba.Tokenizer) -> tuple[dict[str, int], int] | None:
    """jieba's own cache of its default dictionary (the file initialize() trusts without checking mtimes), as bytes."""
    try:
        with open(os.path.join(tokenizer.tmp_dir or tempfile.gettempdir(), "jieba.cache"), "rb") as handle:
            freq, total = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return (freq, total) if isinstance(freq, dict) and freq and isinstance(total, int) else None


def _write_chunked(path: str, freq: dict[str, int], total: int) -> None:
    """Best effort, replaced atomically: an unwritable directory only means the slower load next time."""
    words = list(freq.items())
    parts = [marshal.dumps(dict(words[i:i + _CHUNK_WORDS])) for i in range(0, len(words), _CHUNK_WORDS)]
    try:
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".advisor-jieba-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(marshal.dumps((1, total, parts)))
        os.replace(temporary, path)
    except OSError:
        pass


def load_dictionary() -> None:
    """jieba's dictionary with our terms, now rather than at the first Chinese text (about 0.3 s, holding the GIL)."""
    _ensure_jieba()


def normalize(text: str) -> str:
    """NFKC folds full-width letters and digits (Ａ１００ -> A100); lowercase for matching."""
    return unicodedata.normalize("NFKC", text).lower()


CJK_RUN_PATTERN = re.compile(_CJK_RUN)


def query_language(text: str) -> str:
    """'zh' when the text contains Chinese characters (mixed questions are Chinese with English terms), else 'en'."""
    return "zh" if CJK_RUN_PATTERN.search(text) else "en"


def _stem(word: str) -> str:
    """Fold English plurals so 'checkpoints' matches 'checkpoint'; nothing more aggressive."""
    if not word.isalpha():  # model names such as l40s, h100s are names, not plurals
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "is")):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Search terms of a text, in order, with repeats (BM25 counts them)."""
    _ensure_jieba()
    tokens: list[str] = []
    for match in _RUNS.finditer(normalize(text)):
        cjk, latin = match.groups()
        if cjk:
            tokens.extend(w for w in _segmenter.cut_for_search(cjk, HMM=False) if w not in STOPWORDS_ZH)
            continue
        if latin in STOPWORDS_EN:
            continue
        tokens.append(_stem(latin))
        parts = _PARTS.findall(latin)
        if len(parts) > 1 and _HAS_LETTER.search(latin):
            tokens.extend(_stem(p) for p in parts if p not in STOPWORDS_EN)
        tokens.extend(m.group(1) for p in parts if (m := _VERSIONED.match(p)))
    return tokens


@functools.lru_cache(maxsize=32_768)
def term_set(text: str) -> frozenset[str]:
    """The distinct search terms of a text, kept per text: answer composition scores the same knowledge sentences
    turn after turn, and segmenting them again was a tenth of a turn."""
    return frozenset(tokenize(text))


Sentences = tuple[tuple[str, frozenset[str]], ...]


def snippet_sentences(text: str) -> Sentences:
    """A chunk's plain-text sentences with their search terms; worth caching, it is most of a snippet's cost."""
    return tuple((sentence, term_set(sentence)) for sentence in _plain_sentences(text))


def snippet(text: str, query_terms: set[str], limit: int = SNIPPET_CHARS, *, sentences: Sentences | None = None) -> str:
    """The stretch of text around the sentence that shares the most terms with the query."""
    sentences = snippet_sentences(text) if sentences is None else sentences
    if not sentences:
        return ""
    scores = [len(query_terms & terms) for _, terms in sentences]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    plain = [sentence for sentence, _ in sentences]
    start = end = best
    length = len(plain[best])
    while end + 1 < len(plain) and length + 1 + len(plain[end + 1]) <= limit:
        end += 1
        length += 1 + len(plain[end])
    while start > 0 and length + 1 + len(plain[start - 1]) <= limit:
        start -= 1
        length += 1 + len(plain[start])
    window = _join(plain[start : end + 1])
    if len(window) > limit:
        window = window[: limit - 1].rstrip() + "…"
    return window


FENCE_OR_HEADING_LINE = re.compile(r"^\s*(```|~~~|#+\s).*$", re.MULTILINE)
LIST_MARKER = re.compile(r"^\s*([-*+]|\d+\.)\s+", re.MULTILINE)
MARKUP = re.compile(r"[*`|]+|(?<![a-z0-9])_+|_+(?![a-z0-9])", re.IGNORECASE)
WHITESPACE = re.compile(r"\s+")
SNIPPET_SENTENCE_END = re.compile(r"(?<=[。！？；])|(?<=[.!?;])\s+")


def _plain_sentences(text: str) -> list[str]:
    plain = FENCE_OR_HEADING_LINE.sub(" ", text)  # fences and heading lines
    plain = LIST_MARKER.sub("", plain)  # list markers
    plain = MARKUP.sub("", plain)  # emphasis, code, tables
    plain = WHITESPACE.sub(" ", plain).strip()
    parts = SNIPPET_SENTENCE_END.split(plain)
    return [p.strip() for p in parts if p and p.strip()]


def _join(sentences: list[str]) -> str:
    text = sentences[0]
    for sentence in sentences[1:]:
        text += sentence if text[-1:] in "。！？；" else " " + sentence
    return text
