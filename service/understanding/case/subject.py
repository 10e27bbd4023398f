"""What a case is about, for the capability table: decided once, from the facts and what the prose names.

- training_oom: a CUDA out-of-memory error of a training job (no serving engine in the case);
- serving_memory: a serving engine's memory error (the KV-cache error, or an OOM under vLLM / SGLang / TGI);
- error: any other error signature (the most specific one found);
- training_job_memory / serving_job_memory: no error, a pasted training or serving job, and a question about memory;
- None: the intent handlers answer it.
"""

from __future__ import annotations

from service.understanding.case.model import Case
from service.understanding.case.read_errors import family

TRAINING_EVIDENCE = ("launcher", "script", "deepspeed_config", "sharding", "job_micro_batch", "grad_accum", "method")
REPORT_FAMILIES = ("serving_report", "network_report")
PREALLOCATING = {"vllm", "sglang", "tgi", "lmdeploy", "tensorrt-llm"}  # engines that reserve a share of the card at start-up


def subject_of(case: Case) -> str | None:
    errors = [s for s in case.signatures if family(s) not in REPORT_FAMILIES]
    serving = case.get("task") == "inference" or case.has("engine") or bool(case.mentions("engine"))
    pasted_error = any(f.name == "signature" and f.parser != "prose" for f in case.facts)
    if errors and not pasted_error and case.act == "explain":
        return None  # "what does Xid 79 mean?": a question about an error, not a pasted one — knowledge answers it
    if errors:
        top = errors[0]
        if top == "kv_cache_too_small" or (top == "cuda_oom" and serving):
            return "serving_memory"
        if top == "cuda_oom":
            return "training_oom"
        return "error"
    about_memory = "memory" in case.mentions("topic") or bool(set(case.mentions("option")) & {"zero3", "zero2", "offload", "lora", "qlora"})
    if not about_memory:
        return None
    if serving and case.has("engine"):
        return "serving_job_memory"
    # "Why does vLLM take 90% of my card?" in words: the engine's pre-allocation, not a sizing of throughput, latency or cost.
    topics = set(case.mentions("topic"))
    if (set(case.mentions("engine")) & PREALLOCATING and "usage" in topics and case.act in ("cause", "procedure", "none", "yes_no")
            and not topics & {"speed", "time", "cost", "count"}):
        return "serving_job_memory"
    if case.artefacts and any(case.fact(name) is not None and case.fact(name).parser != "prose" for name in TRAINING_EVIDENCE):
        return "training_job_memory"
    return None
