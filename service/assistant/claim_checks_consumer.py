"""A consumer card (RTX 4090 / 3090) claimed to train as fast as a data-centre card (A100 / H100).

Compute is only one of three things such a claim leaves out. `consumer_points(ctx, a, b)` adds the other two, from
the catalog and the tools:
- memory: 24 GB against 80 GB decides what fits on one card (the training-memory tool for the user's model, or for
  reference workloads, on each card);
- multi-GPU scaling: no NVLink (or a two-card bridge) means gradients go over PCIe; one gradient all-reduce of a 7B
  model across 8 cards on each card (the allreduce tool) shows the cost.
Sentences are in the message catalog (s2.consumer_*).
"""

from __future__ import annotations

from service.assistant.compose.fmt import model_label, num
from service.assistant.messages import say

# (params in billions, method): what a 24 GB card holds and an 80 GB card holds, when the user named no model
REFERENCE = ((7, "full"), (13, "lora"), (70, "qlora"))
ALLREDUCE_PARAMS_B = 7  # the gradient all-reduce compared across 8 cards


def consumer_pair(catalog, gpu_ids: list[str]):
    """(consumer, data-centre) when the two cards named are one of each, else None."""
    if len(gpu_ids) < 2:
        return None
    a, b = (catalog.gpus[g] for g in gpu_ids[:2])
    dc = {"datacenter"}
    if a.training_class not in dc and b.training_class in dc:
        return a, b
    if b.training_class not in dc and a.training_class in dc:
        return b, a
    return None


def consumer_points(ctx, gpu_ids: list[str]) -> list[str]:
    pair = consumer_pair(ctx.catalog, gpu_ids)
    if pair is None:
        return []
    consumer, dc = pair
    return [p for p in (_memory_point(ctx, consumer, dc), _scaling_point(ctx, consumer, dc)) if p]


def compare_points(ctx, gpu_ids: list[str], *, memory: bool) -> list[str]:
    """For a comparison of the two: multi-GPU scaling, and memory when the comparison has not sized what fits."""
    pair = consumer_pair(ctx.catalog, gpu_ids)
    if pair is None:
        return []
    points = [_memory_point(ctx, *pair)] if memory else []
    return [p for p in [*points, _scaling_point(ctx, *pair)] if p]


def _link_name(lang: str, name: str) -> str:
    return name.split(" (")[0] if lang == "zh" else name  # "NVLink 3 (NVSwitch on HGX A100)": the product name only in Chinese


def _method_word(lang: str, method: str) -> str:
    return say(f"s2.method.{method}", lang)


def _memory_point(ctx, consumer, dc) -> str | None:
    s, lang = ctx.slots, ctx.lang
    if s.model or s.params_b:
        cases = [({"model": s.model, "params_b": None if s.model else s.params_b}, s.method or "full")]
    else:
        cases = [({"params_b": p}, m) for p, m in REFERENCE]
    word = {k: say(f"claim.fit.{k}", lang) for k in ("fits", "tight", "does_not_fit")}
    rows = []
    for model, method in cases:
        small, _ = ctx.try_run("training-memory", {**model, "method": method, "gpu": consumer.id})
        big, _ = ctx.try_run("training-memory", {**model, "method": method, "gpu": dc.id})
        if small is None or big is None:
            continue
        name = model_label(ctx.catalog, small.model, model.get('params_b') or 0)
        rows.append(
            say(
                "s2.consumer_fit_row",
                lang,
                model=name,
                method=_method_word(lang, method),
                total=num(small.per_gpu.total_gib),
                small_fit=word[small.fit],
                big_fit=word[big.fit],
                small=consumer.name,
                big=dc.name,
            )
        )
    if not rows:
        return None
    sep = "；" if lang == "zh" else "; "
    return say("s2.consumer_memory", lang, small=consumer.name, big=dc.name, small_gb=num(consumer.memory_gb), big_gb=num(dc.memory_gb), rows=sep.join(rows))


def _scaling_point(ctx, consumer, dc) -> str:
    lang = ctx.lang
    if consumer.scale_up is None:
        link = say("s2.consumer_no_nvlink", lang, small=consumer.name, gen=consumer.pcie_gen, pcie=num(consumer.pcie_gbps_per_direction))
        if consumer.architecture.startswith("Ada") and consumer.vendor == "nvidia":
            link += " " + say("s2.consumer_no_p2p", lang)
    else:
        link = say(
            "s2.consumer_bridge",
            lang,
            small=consumer.name,
            link=_link_name(lang, consumer.scale_up.name),
            bw=num(consumer.scale_up.bandwidth_gbps_bidir),
            pairs=consumer.scale_up.max_gpus,
            gen=consumer.pcie_gen,
            pcie=num(consumer.pcie_gbps_per_direction),
        )
    big_link = say(
        "s2.consumer_dc_link",
        lang,
        big=dc.name,
        link=_link_name(lang, dc.scale_up.name) if dc.scale_up else "PCIe",
        bw=num(dc.scale_up.bandwidth_gbps_bidir if dc.scale_up else dc.pcie_gbps_per_direction * 2),
    )
    payload = {"params_b": ALLREDUCE_PARAMS_B, "gpus": 8, "gpus_per_node": 8}
    slow, _ = ctx.try_run("allreduce", {**payload, "gpu": consumer.id})
    fast, _ = ctx.try_run("allreduce", {**payload, "gpu": dc.id})
    text = link + " " + big_link
    if slow is not None and fast is not None:
        ctx.record(
            "allreduce-ratio",
            {"slow_gpu": consumer.id, "fast_gpu": dc.id, "slow_ms": slow.total_ms, "fast_ms": fast.total_ms},
            {"ratio": slow.total_ms / fast.total_ms},
        )
        text += " " + say(
            "s2.consumer_allreduce",
            lang,
            params=ALLREDUCE_PARAMS_B,
            small=consumer.name,
            big=dc.name,
            slow=num(slow.total_ms),
            fast=num(fast.total_ms),
            ratio=num(slow.total_ms / fast.total_ms),
        )
    return text
