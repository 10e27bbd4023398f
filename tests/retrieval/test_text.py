"""Search terms (jieba for Chinese, compounds for Latin) and snippets."""

from __future__ import annotations

from pathlib import Path

from service.retrieval.text import SNIPPET_CHARS, snippet, tokenize


def test_chinese_is_segmented_with_the_technical_dictionary() -> None:
    tokens = tokenize("断点续训时如何保存优化器状态")
    assert {"断点续训", "优化器", "优化器状态"} <= set(tokens)
    assert "如何" not in tokens, "question words are stop words"


def test_mixed_text_keeps_model_and_gpu_names() -> None:
    tokens = tokenize("70B模型用LoRA微调需要几张A100 80G？")
    assert {"70b", "lora", "微调", "a100", "80g"} <= set(tokens)


def test_latin_compounds_are_kept_whole_and_split() -> None:
    tokens = tokenize("p5.48xlarge with A100-80G")
    assert {"p5.48xlarge", "p5", "48xlarge", "a100-80g", "a100", "80g"} <= set(tokens)
    assert "with" not in tokens


def test_plurals_fold_but_names_do_not() -> None:
    assert tokenize("checkpoints strategies GPUs") == ["checkpoint", "strategy", "gpu"]
    assert tokenize("L40S") == ["l40s"]


def test_full_width_characters_fold() -> None:
    assert tokenize("Ａ１００") == ["a100"]


def test_snippet_centres_on_the_matching_sentence() -> None:
    text = " ".join(f"Filler sentence number {i} about nothing." for i in range(30)) + " The NCCL bandwidth test matters."
    result = snippet(text, set(tokenize("nccl bandwidth")))
    assert "NCCL bandwidth" in result
    assert len(result) <= SNIPPET_CHARS


def test_snippet_without_overlap_starts_at_the_beginning_and_strips_markdown() -> None:
    result = snippet("## Heading\n\n- **Bold** item one.\n- `code` item two.", {"nothing"})
    assert result == "Bold item one. code item two."


def test_snippet_of_one_long_sentence_is_cut_with_an_ellipsis() -> None:
    result = snippet("显存" * 400 + "。", set())
    assert len(result) == SNIPPET_CHARS and result.endswith("…")


def test_term_set_is_the_distinct_tokens_of_a_text() -> None:
    from service.retrieval.text import term_set

    text = "Checkpoints 与 checkpoint 写入 NVMe，checkpoint 间隔"
    assert term_set(text) == frozenset(tokenize(text))
    assert term_set(text) is term_set(text), "kept per text"


def test_jiebas_dictionary_loaded_in_chunks_is_the_one_jieba_loads(tmp_path) -> None:
    import jieba

    from service.retrieval.text import _chunked_cache_path, _load_prefix_dictionary

    def tokenizer() -> jieba.Tokenizer:
        made = jieba.Tokenizer()
        made.tmp_dir = str(tmp_path)
        return made

    reference = tokenizer()
    reference.initialize()  # jieba's own: builds the prefix dictionary, writes tmp_path/jieba.cache
    text = "训练到一半断电了怎么办，断点续训时如何保存优化器状态"
    first = tokenizer()
    _load_prefix_dictionary(first)  # from jieba's cache, writing ours
    chunked = _chunked_cache_path(first)
    assert Path(chunked).exists()
    second = tokenizer()
    _load_prefix_dictionary(second)  # from ours, in chunks
    for made in (first, second):
        assert made.initialized and made.FREQ == reference.FREQ and made.total == reference.total
        assert list(made.cut_for_search(text, HMM=False)) == list(reference.cut_for_search(text, HMM=False))
    Path(chunked).write_bytes(b"\x00not marshal")
    damaged = tokenizer()
    _load_prefix_dictionary(damaged)  # a damaged cache of ours is written again from jieba's
    assert damaged.FREQ == reference.FREQ and damaged.total == reference.total
