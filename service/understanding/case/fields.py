"""Which tool input each case fact fills, so a value read from the user's command or config is shown as theirs
("you: line 3 `--per_device_train_batch_size 4`") in the work, not as the assistant's assumption."""

from __future__ import annotations

from service.understanding.case.model import Case

TOOL_FIELDS: dict[str, tuple[str, ...]] = {
    "model_id": ("model",), "params_b": ("params_b",), "gpus_total": ("gpus",), "sharding": ("sharding",), "offload": ("offload",),
    "method": ("method",), "precision": ("precision", "weights"), "train_seq_len": ("seq_len",), "job_micro_batch": ("micro_batch",),
    "tp": ("tp", "gpus"), "pp": ("pp",), "gradient_checkpointing": ("recompute",), "lora_rank": ("lora_rank",), "optimizer": ("optimizer",),
    "max_model_len": ("context_len",), "kv_cache_dtype": ("kv_cache",), "quantization": ("weights",), "task": ("task",),
    "gpu_id": ("gpu",), "card_memory_gib": ("gpu",),
}


def stated_fields(case: Case | None) -> dict[str, str]:
    """tool field -> where the case read it ("line 3: --per_device_train_batch_size 4"), for facts read from what was pasted."""
    if case is None:
        return {}
    out: dict[str, str] = {}
    for fact in case.facts:
        for field in TOOL_FIELDS.get(fact.name, ()):
            out.setdefault(field, f"line {fact.line}: {fact.quote[:80]}")
    return out
