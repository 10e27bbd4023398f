"""The job the facts describe: values that combine several facts (GPUs in all, sharding, offload, method, task,
precision, sequence length, the model and card in the catalog), each derived fact quoting the line of its main source.

A fact the user's own prose states (read by the slot readers) is not overridden here: derive only adds what the
artefacts say, and the caller merges prose slots first.
"""

from __future__ import annotations

import re

from service.catalog import Catalog
from service.understanding.case.mentions import mention_patterns
from service.understanding.case.model import Fact, Scalar

# Memory sizes of the catalog's cards as PyTorch reports total capacity (GiB, a little under the nominal size).
NOMINAL_MEMORY = (8, 10, 11, 12, 16, 20, 22, 24, 32, 40, 48, 64, 80, 94, 96, 141, 144, 180, 192)
SIZE_TOKEN = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*([bm])(?![a-z0-9])", re.I)
MOE_TOKEN = re.compile(r"(\d+)x(\d+(?:\.\d+)?)b", re.I)
MODEL_SUFFIX = re.compile(r"[-_](?:hf|instruct|chat|base|it|sft|dpo|awq|gptq|gguf|int4|int8|fp8|bf16|v\d+(?:\.\d+)*|\d{4})$", re.I)


class Derived:
    def __init__(self, facts: list[Fact]) -> None:
        self.facts = facts
        self.added: list[Fact] = []

    def first(self, *names: str) -> Fact | None:
        for name in names:
            for fact in self.facts:
                if fact.name == name:
                    return fact
        return None

    def add(self, name: str, value: Scalar, source: Fact) -> None:
        if value is None or any(f.name == name for f in self.added):
            return
        self.added.append(Fact(name=name, value=value, line=source.line, quote=source.quote, parser="derived"))


def nominal_memory_gib(reported_gib: float) -> int | None:
    """The card size a reported capacity stands for (39.39 GiB total -> a 40 GB card; 23.65 -> 24)."""
    for size in NOMINAL_MEMORY:
        if size * 0.90 <= reported_gib <= size * 1.02:
            return size
    return None


def resolve_model(name: str, catalog: Catalog) -> tuple[str | None, float | None]:
    """(catalog id, parameter count in billions) for a model path or name ("/mnt/model/Llama-2-70b-hf", "Qwen/Qwen1.5-14B-Chat")."""
    base = name.strip().rstrip("/").rsplit("/", 1)[-1]
    cleaned = base
    for _ in range(4):
        cleaned = MODEL_SUFFIX.sub("", cleaned)
    moe = MOE_TOKEN.search(cleaned)
    for candidate in dict.fromkeys((base, cleaned)):
        exact = catalog.find_model(candidate)
        if exact is not None and (moe is None or "x" in exact.id):
            size = SIZE_TOKEN.search(cleaned)
            named = float(size.group(1)) * (1e-3 if size.group(2).lower() == "m" else 1) if size else None
            if named is None or abs(exact.params / 1e9 - named) <= max(0.25 * named, 0.6) or moe:
                return exact.id, exact.params / 1e9
    if moe:
        return None, None  # an MoE size we do not hold ("8x22B"): its total is not experts × size
    size = SIZE_TOKEN.search(cleaned)
    if size:
        value = float(size.group(1)) * (1e-3 if size.group(2).lower() == "m" else 1)
        return None, value if 0.01 <= value <= 2000 else None
    return None, None


def derive(facts: list[Fact], catalog: Catalog) -> list[Fact]:
    d = Derived(facts)
    if model := d.first("model"):
        model_id, params_b = resolve_model(str(model.value), catalog)
        if model_id:
            d.add("model_id", model_id, model)
        if params_b:
            d.add("params_b", round(params_b, 3), model)
    # GPUs in all: processes (accelerate's num_processes) beat per-node × nodes; the visible list is what one node runs on.
    per_node = d.first("gpus_per_node", "visible_gpus", "smi_gpu_count", "topo_gpus")
    nodes = d.first("nodes")
    if processes := d.first("processes"):
        d.add("gpus_total", int(processes.value), processes)
    elif per_node is not None:
        d.add("gpus_total", int(per_node.value) * (int(nodes.value) if nodes else 1), per_node)
    if nodes is not None:
        d.add("nodes_total", int(nodes.value), nodes)
    _sharding(d)
    _method(d)
    _precision(d)
    _task(d)
    if seq := d.first("seq_len"):
        d.add("train_seq_len", int(seq.value), seq)
    elif (src := d.first("max_source_length")) and (tgt := d.first("max_target_length")):
        d.add("train_seq_len", int(src.value) + int(tgt.value), src)
    pasted = [f for f in d.facts if f.name == "micro_batch" and f.parser != "prose"]
    micro = (pasted[0] if pasted else None) or (d.first("batch_size") if d.first("launcher", "script") else None) or d.first("micro_batch")
    if micro is not None:
        d.add("job_micro_batch", int(micro.value), micro)
    _cards(d, catalog)
    return d.added


def _sharding(d: Derived) -> None:
    stage = d.first("zero_stage") or d.first("zero_stage_hint")
    strategy = d.first("fsdp_sharding_strategy")
    distributed = d.first("distributed_type")
    if stage is not None and int(stage.value) in (1, 2, 3):
        d.add("sharding", f"zero{int(stage.value)}", stage)
    elif stage is not None and int(stage.value) == 0:
        d.add("sharding", "none", stage)
    elif strategy is not None:
        value = str(strategy.value).lower()
        d.add("sharding", "zero2" if "grad_op" in value or value == "2" else "fsdp" if "full" in value or value == "1" or "hybrid" in value else "none", strategy)
    elif distributed is not None and str(distributed.value).upper() == "FSDP":
        d.add("sharding", "fsdp", distributed)
    elif (said := _stage_in_prose(d)) is not None:
        d.add("sharding", *said)
    opt, param = d.first("offload_optimizer"), d.first("offload_param")
    fsdp_offload = d.first("fsdp_offload_params")
    if param is not None and str(param.value).lower() in ("cpu", "nvme"):
        d.add("offload", "optimizer+params", param)
    elif fsdp_offload is not None and fsdp_offload.value is True:
        d.add("offload", "optimizer+params", fsdp_offload)
    elif opt is not None and str(opt.value).lower() in ("cpu", "nvme"):
        d.add("offload", "optimizer", opt)
    elif (hint := d.first("offload_hint")) is not None:
        d.add("offload", "optimizer", hint)


# The stage a user says they run ("用的是 deepspeed zero stage2 配置", "with ZeRO-3 on 8 GPUs"): one stage named, in a
# clause that is not itself the question ("would ZeRO-3 fix it?" asks about a change, it does not state the job).
STAGES = {"option:zero2": "zero2", "option:zero3": "zero3"}
CLAUSE_END = re.compile(r"[.。!！?？;；,，]")


def _stage_in_prose(d: Derived) -> tuple[str, Fact] | None:
    said = [f for f in d.facts if f.name == "mention" and f.value in STAGES]
    if len({f.value for f in said}) != 1:
        return None
    fact = said[0]
    pattern = dict(mention_patterns())[fact.value]
    match = pattern.search(fact.quote)
    if match is None:
        return None
    end = CLAUSE_END.search(fact.quote, match.end())
    if end is not None and end.group(0) in "?？":
        return None
    if end is None and re.search(r"[?？]\s*$", fact.quote):
        return None
    return STAGES[fact.value], fact


def _method(d: Derived) -> None:
    typed = d.first("finetuning_type", "adapter")
    four_bit = d.first("load_in_4bit")
    bits = d.first("quant_bits")
    quantized = (four_bit is not None and four_bit.value is True) or (bits is not None and int(bits.value) == 4)
    lora = d.first("use_lora") if (d.first("use_lora") and d.first("use_lora").value is True) else d.first("lora_rank")
    if typed is not None:
        value = str(typed.value)
        if value == "lora" and quantized:
            value = "qlora"
        d.add("method", value if value in ("full", "lora", "qlora", "freeze") else "full", typed)
    elif lora is not None:
        d.add("method", "qlora" if quantized else "lora", lora)


def _precision(d: Derived) -> None:
    for name in ("bf16", "fp16", "fp8"):
        fact = d.first(name)
        if fact is not None and fact.value is True:
            d.add("precision", name, fact)
            return
    fact = d.first("mixed_precision", "dtype")
    if fact is not None and fact.value in ("bf16", "fp16", "fp32", "fp8"):
        d.add("precision", fact.value, fact)


def _task(d: Derived) -> None:
    if engine := d.first("engine"):
        d.add("task", "inference", engine)
        return
    if stage := d.first("stage"):
        d.add("task", "pretrain" if stage.value == "pretrain" else "fine-tune", stage)
        return
    if source := d.first("launcher", "script", "deepspeed_config", "grad_accum", "micro_batch", "zero_stage", "sharding"):
        d.add("task", "fine-tune", source)


def _cards(d: Derived, catalog: Catalog) -> None:
    if name := d.first("gpu_name"):
        gpu = catalog.find_gpu(str(name.value).replace("NVIDIA", "").replace("GeForce", "").strip())
        if gpu is not None:
            d.add("gpu_id", gpu.id, name)
    if total := d.first("oom_total_gib", "gpu_memory_total_gib"):
        size = nominal_memory_gib(float(total.value))
        if size:
            d.add("card_memory_gib", size, total)
