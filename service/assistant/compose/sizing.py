"""Sizing results as answer blocks: the direct answer first (lead), then a compact table."""

from __future__ import annotations

import re

from service.assistant.compose import fit
from service.assistant.compose.fmt import big, duration, duration_band, gib, link_name, money, money_band, num, pct, pick
from service.catalog import Catalog
from service.contract import (
    Band,
    Block,
    LeadBlock,
    ParagraphBlock,
    Recommendation,
    RecommendationBlock,
    RecommendedOption,
    TableBlock,
    TableCell,
    TableColumn,
)
from service.render.labels import TIERS as TIER
from service.sizing.base import SizingResult

FIT = {
    "en": {"fits": "fits", "tight": "fits, but tight", "does_not_fit": "does NOT fit"},
    "zh": {"fits": "放得下", "tight": "勉强放得下", "does_not_fit": "放不下"},
}
SHARDING = {"none": ("no sharding", "不切分"), "zero1": ("ZeRO-1", "ZeRO-1"), "zero2": ("ZeRO-2", "ZeRO-2"), "zero3": ("ZeRO-3 / FSDP", "ZeRO-3 / FSDP"),
            "fsdp": ("FSDP", "FSDP"), "tensor-parallel": ("tensor parallel", "张量并行")}
ALTERNATIVE = {"recommended": ("recommended", "推荐"), "fastest": ("fastest", "最快"), "cheapest": ("cheapest", "最便宜"),
               "fewest-gpus": ("fewest GPUs", "卡数最少"), "other-gpu": ("other GPU", "其他 GPU")}
# (label, formatted text) or (label, formatted text, the number behind it)
Row = tuple[str, str] | tuple[str, str, float]
Rendered = tuple[str, list[Row] | None]

CJK_PAREN = re.compile(r"\s*[（(]([^()（）]*[\u4e00-\u9fff][^()（）]*)[）)]")


def localized(text: str, lang: str) -> str:
    """Catalog prose is English with the article's Chinese in parentheses: keep the reader's half."""
    if lang == "zh":
        found = CJK_PAREN.findall(text)
        return "；".join(found) if found else text
    return CJK_PAREN.sub("", text)


def table(rows: list[Row], lang: str, title: str | None = None) -> TableBlock:
    columns = [TableColumn(key="item", label=pick(lang, "item", "项目")), TableColumn(key="value", label=pick(lang, "value", "数值"))]
    return TableBlock(title=title, columns=columns, rows=[[TableCell(text=row[0]), TableCell(text=row[1], value=row[2] if len(row) > 2 else None)]
                                                         for row in rows])


def gpu_name(catalog: Catalog, gpu_id: str | None) -> str:
    return catalog.gpus[gpu_id].name if gpu_id and gpu_id in catalog.gpus else str(gpu_id)


def model_name(catalog: Catalog, model: str) -> str:
    # A model given only by size is shown by its size in every language; the work block says its shape was estimated.
    return catalog.models[model].name if model in catalog.models else model.removesuffix(" (estimated shape)")


def blocks(result: SizingResult, lang: str, catalog: Catalog, *, lead: bool = True) -> list[Block]:
    """The result's headline (a lead when it answers the question, else a paragraph) and its table or recommendation."""
    renderer = RENDERERS.get(result.tool)
    if renderer is None:
        return []
    head, rows = renderer(result, lang, catalog)
    out: list[Block] = [LeadBlock(text=head) if lead else ParagraphBlock(text=head)]
    if result.tool == "recommend":
        out.append(RecommendationBlock(recommendation=recommendation(result, lang, catalog)))
        weights = fit.plan_weights(result.memory, lang) if result.memory is not None and result.task != "inference" else None
        if weights:
            out.append(ParagraphBlock(text=weights))  # why this card: the weights alone, the first number a reader checks
    elif rows:
        out.append(table(rows, lang))
    return out


def _memory(r, lang: str, catalog: Catalog) -> Rendered:
    model = model_name(catalog, r.model)
    method = {"full": pick(lang, "full fine-tuning", "全参数微调"), "lora": "LoRA", "qlora": "QLoRA"}[r.method]
    if r.task == "pretrain":
        method = pick(lang, "pre-training", "预训练")
    where = f" {pick(lang, 'on', '在')} {gpu_name(catalog, r.gpu)}" if r.gpu else ""
    head = pick(lang, f"**{method[0].upper() + method[1:]} of {model} needs about {gib(r.per_gpu.total_gib)} per GPU**",
                f"**{model} {method}每张 GPU 约需 {gib(r.per_gpu.total_gib)} 显存**")
    if r.fit:
        head += pick(lang, f" — it **{FIT['en'][r.fit]}**{where} ({gib(r.gpu_memory_gib)}).", f"，{where}（{gib(r.gpu_memory_gib)}）**{FIT['zh'][r.fit]}**。")
        head = f"{fit.verdict(r.fit, lang)} {head}"  # a fit question is answered with its verdict word first
    else:
        head += "." if lang == "en" else "。"
    layout = f"{r.gpus} GPU, {r.sharding}, tp={r.tp}, pp={r.pp}, {r.precision}, recompute={r.recompute}, seq={r.seq_len}, micro-batch={r.micro_batch}"
    rows = [
        (pick(lang, "layout", "并行与精度"), layout),
        (pick(lang, "weights", "权重"), gib(r.per_gpu.weights_gib), r.per_gpu.weights_gib),
        (pick(lang, "gradients", "梯度"), gib(r.per_gpu.gradients_gib), r.per_gpu.gradients_gib),
        (pick(lang, "optimizer + master weights", "优化器状态 + 主权重"), gib(r.per_gpu.optimizer_gib), r.per_gpu.optimizer_gib),
        (pick(lang, "activations", "激活值"), gib(r.per_gpu.activations_gib), r.per_gpu.activations_gib),
        (pick(lang, "buffers", "缓冲区"), gib(r.per_gpu.buffers_gib), r.per_gpu.buffers_gib),
        (pick(lang, "runtime overhead", "运行时开销"), gib(r.per_gpu.overhead_gib), r.per_gpu.overhead_gib),
        (pick(lang, "total per GPU", "每卡合计"), gib(r.per_gpu.total_gib), r.per_gpu.total_gib),
        (pick(lang, "convention", "字节口径"), f"{r.convention} ({num(r.bytes_per_param)} B/param)"),
    ]
    return head, rows


def _time(r, lang: str, catalog: Catalog) -> Rendered:
    model, gpu = model_name(catalog, r.model), gpu_name(catalog, r.gpu)
    head = pick(lang,
                f"**Training {model} on {big(r.tokens, lang)} tokens with {r.gpus} × {gpu} takes about {duration_band(r.hours, lang)}** at MFU {pct(r.mfu.typical)} (band {pct(r.mfu.low)}–{pct(r.mfu.high)}), "
                f"that is **{big(r.gpu_hours.typical, lang)} GPU-hours** ({big(r.gpu_hours.low, lang)}–{big(r.gpu_hours.high, lang)}).",
                f"**用 {r.gpus} 张 {gpu} 训练 {model}（{big(r.tokens, lang)} token）约需 {duration_band(r.hours, lang)}**，典型 MFU {pct(r.mfu.typical)}（区间 {pct(r.mfu.low)}～{pct(r.mfu.high)}），"
                f"合计约 **{big(r.gpu_hours.typical, lang)} GPU小时（卡时）**（{big(r.gpu_hours.low, lang)}～{big(r.gpu_hours.high, lang)}）。")
    rows = [
        (pick(lang, "total compute", "总计算量"), f"{r.flops:.3g} FLOPs"),
        (pick(lang, "peak per GPU (dense)", "单卡峰值（稠密）"), f"{num(r.peak_tflops_per_gpu, 4)} TFLOP/s {r.precision}"),
        (pick(lang, "wall-clock (typical)", "墙钟时间（典型）"), duration(r.hours.typical, lang), r.hours.typical),
        ("GPU-hours" if lang == "en" else "GPU小时（卡时）", f"{big(r.gpu_hours.typical, lang)} ({big(r.gpu_hours.low, lang)}–{big(r.gpu_hours.high, lang)})"),
        (pick(lang, "throughput", "吞吐"), f"{big(r.tokens_per_second, lang)} tokens/s ≈ {num(r.samples_per_second)} samples/s @ {r.seq_len} tokens"),
        ("goodput", pct(r.goodput)),
    ]
    return head, rows


def _deadline(r, lang: str, catalog: Catalog) -> Rendered:
    gpu = gpu_name(catalog, r.gpu)
    head = pick(lang,
                f"**Finishing in {duration(r.deadline_hours, lang)} needs about {num(r.gpus.typical)} × {gpu}** ({num(r.gpus.low)}–{num(r.gpus.high)} across the MFU band); plan for {r.gpus_rounded:,}.",
                f"**要在 {duration(r.deadline_hours, lang)}内完成，约需 {num(r.gpus.typical)} 张 {gpu}**（按 MFU 区间为 {num(r.gpus.low)}～{num(r.gpus.high)} 张），建议按 {r.gpus_rounded:,} 张规划。")
    rows = [(pick(lang, "total compute", "总计算量"), f"{r.flops:.3g} FLOPs"), ("MFU", f"{pct(r.mfu.typical)} ({pct(r.mfu.low)}–{pct(r.mfu.high)})"), ("goodput", pct(r.goodput))]
    return head, rows


def _budget_tokens(r, lang: str, catalog: Catalog) -> Rendered:
    gpu = gpu_name(catalog, r.gpu)
    head = pick(lang, f"**{r.gpus} × {gpu} for {duration(r.hours, lang)} can train about {big(r.tokens.typical, lang)} tokens** ({big(r.tokens.low, lang)}–{big(r.tokens.high, lang)}) "
                      f"at MFU {pct(r.mfu.typical)} (band {pct(r.mfu.low)}–{pct(r.mfu.high)}).",
                f"**{r.gpus} 张 {gpu} 在 {duration(r.hours, lang)}内约可训练 {big(r.tokens.typical, lang)} token**（{big(r.tokens.low, lang)}～{big(r.tokens.high, lang)}），"
                f"典型 MFU {pct(r.mfu.typical)}（区间 {pct(r.mfu.low)}～{pct(r.mfu.high)}）。")
    return head, None


def _compute(r, lang: str, catalog: Catalog) -> Rendered:
    head = pick(lang, f"**Training {model_name(catalog, r.model)} on {big(r.tokens, lang)} tokens costs about {r.model_flops:.3g} FLOPs** (6·N·D = {r.flops_6nd:.3g}, attention {r.attention_flops:.3g}).",
                f"**{model_name(catalog, r.model)} 训练 {big(r.tokens, lang)} token 约需 {r.model_flops:.3g} FLOPs**（6·N·D = {r.flops_6nd:.3g}，注意力项 {r.attention_flops:.3g}）。")
    return head, None


def _inference(r, lang: str, catalog: Catalog) -> Rendered:
    model = model_name(catalog, r.model)
    head = pick(lang, f"**Serving {model} at {r.weights_format} needs about {gib(r.per_gpu_total_gib)} per GPU** ({r.gpus} GPU, {r.concurrency} concurrent × {r.context_len} tokens)",
                f"**以 {r.weights_format} 部署 {model} 每卡约需 {gib(r.per_gpu_total_gib)} 显存**（{r.gpus} 卡，{r.concurrency} 路并发 × {r.context_len} token）")
    if r.fit:
        head += pick(lang, f" — it **{FIT['en'][r.fit]}** on {gpu_name(catalog, r.gpu)}.", f"，在 {gpu_name(catalog, r.gpu)} 上**{FIT['zh'][r.fit]}**。")
        head = f"{fit.verdict(r.fit, lang)} {head}"
    rows = [
        (pick(lang, "weights", "权重"), gib(r.weights_gib), r.weights_gib),
        (pick(lang, "KV cache per token", "每 token KV 缓存"), f"{num(r.kv_bytes_per_token / 1024)} KiB"),
        (pick(lang, "KV cache total", "KV 缓存合计"), gib(r.kv_total_gib), r.kv_total_gib),
    ]
    if r.decode_tokens_per_second:
        d = r.decode_tokens_per_second
        rows.append((pick(lang, "decode speed per sequence", "单路解码速度"), f"{num(d.typical)} tokens/s ({num(d.low)}–{num(d.high)}), {r.decode_bound}-bound"))
        rows.append((pick(lang, "time to first token", "首 token 延迟"), f"{num(r.time_to_first_token_s)} s"))
    if r.max_concurrency is not None:
        rows.append((pick(lang, "max concurrent sequences", "最大并发序列数"), str(r.max_concurrency)))
    return head, rows


def _allreduce(r, lang: str, catalog: Catalog) -> Rendered:
    head = pick(lang, f"**All-reducing {num(r.size_mb)} MB across {r.gpus} GPUs takes about {num(r.total_ms)} ms** over {r.fabric}; latency is {pct(r.latency_share)} of it.",
                f"**在 {r.gpus} 张 GPU 上对 {num(r.size_mb)} MB 做 all-reduce 约需 {num(r.total_ms)} ms**（{r.fabric}），其中延迟占 {pct(r.latency_share)}。")
    tail = pick(lang, f" Raising per-hop latency by 0.5 µs adds {pct(r.slowdown_from_half_us)}.", f" 每跳延迟增加 0.5 µs 只会多 {pct(r.slowdown_from_half_us)}。")
    return head + tail, None


def _nccl(r, lang: str, catalog: Catalog) -> Rendered:
    band = r.expected_busbw_gbps
    head = pick(lang, f"**Expected all_reduce busbw for {r.gpus} × {gpu_name(catalog, r.gpu)} over {r.fabric}: about {num(band.typical)} GB/s** (healthy above {num(band.low)} GB/s).",
                f"**{r.gpus} 张 {gpu_name(catalog, r.gpu)}（{r.fabric}）的 all_reduce busbw 预期约 {num(band.typical)} GB/s**（高于 {num(band.low)} GB/s 视为正常）。")
    if r.measured_busbw_gbps is not None:
        verdict = {"healthy": pick(lang, "healthy", "正常"), "degraded": pick(lang, "low — not normal, degraded", "偏低，不正常"),
                   "broken": pick(lang, "far too low — not normal, something is broken", "严重偏低、不正常（有故障）")}[r.verdict]
        head += pick(lang, f" Your {num(r.measured_busbw_gbps)} GB/s is {pct(r.ratio)} of that: **{verdict}**.",
                     f" 您实测的 {num(r.measured_busbw_gbps)} GB/s 只有预期的 {pct(r.ratio)}：**{verdict}**。")
        if r.shortfall and r.verdict != "healthy":
            head += pick(lang, f" That is about {num(r.shortfall)}× below the expected figure.", f" 比预期低约 {num(r.shortfall)} 倍。")
        if r.effective_gpus is not None and r.verdict != "healthy":
            head += pick(lang, f" The interconnect behaves like {num(r.effective_gpus)} GPUs' worth of bandwidth.", f" 互联带宽只相当于 {num(r.effective_gpus)} 张卡的水平。")
    return head, None


def _data_loader(r, lang: str, catalog: Catalog) -> Rendered:
    head = pick(lang, f"**The loader must read about {num(r.read_mb_per_s)} MB/s** ({num(r.read_mb_per_s_with_headroom)} MB/s with headroom)",
                f"**数据加载需要约 {num(r.read_mb_per_s)} MB/s 的读取带宽**（留余量后 {num(r.read_mb_per_s_with_headroom)} MB/s）")
    if r.files_per_second:
        head += pick(lang, f" and open {num(r.files_per_second)} files/s", f"，每秒打开 {num(r.files_per_second)} 个文件")
    return head + ("." if lang == "en" else "。"), None


def _checkpoint(r, lang: str, catalog: Catalog) -> Rendered:
    return pick(lang,
                f"**A checkpoint of {model_name(catalog, r.model)} ({'weights + optimizer state' if r.contents == 'full' else 'weights only'}) is about {num(r.size_gb)} GB** and takes {num(r.write_seconds)} s{f' (≈ {num(r.write_seconds / 60)} minutes)' if r.write_seconds >= 120 else ''} to write; with a job MTBF of {num(r.job_mtbf_hours)} h, checkpoint every {num(r.optimal_interval_minutes)} minutes (overhead {pct(r.overhead_fraction)}).",
                f"**{model_name(catalog, r.model)} 的检查点（{'权重 + 优化器状态' if r.contents == 'full' else '仅权重'}）约 {num(r.size_gb)} GB**，写入约需 {num(r.write_seconds)} 秒{f'（约 {num(r.write_seconds / 60)} 分钟）' if r.write_seconds >= 120 else ''}；按作业平均无故障时间 {num(r.job_mtbf_hours)} 小时，建议每 {num(r.optimal_interval_minutes)} 分钟保存一次（开销 {pct(r.overhead_fraction)}）。"), None


def _cost(r, lang: str, catalog: Catalog) -> Rendered:
    if not r.cheapest:
        return pick(lang, "No catalog instance matches these filters.", "目录中没有符合条件的实例。"), None
    c = r.cheapest
    if c.price.price_basis == "quoted":  # the user's rate: every instance costs the same, so the bill is the answer
        return pick(lang, f"**About {money(c.total_cost, r.currency)}**: {num(c.gpu_hours)} GPU-hours at your {money(c.price.price_per_gpu_hour, r.currency)}/GPU-h.",
                    f"**约 {money(c.total_cost, r.currency)}**：共 {num(c.gpu_hours)} GPU 小时，按您给出的单价 {money(c.price.price_per_gpu_hour, r.currency)}/GPU 小时计算。"), None
    head = pick(lang, f"**Cheapest: {c.price.name} ({c.price.provider}), about {money(c.total_cost, r.currency)}** for {num(c.gpu_hours)} GPU-hours at {money(c.price.price_per_gpu_hour, r.currency)}/GPU-h ({r.pricing}, {c.price.region}, {c.price.as_of}).",
                f"**最便宜：{c.price.name}（{c.price.provider}），约 {money(c.total_cost, r.currency)}**，共 {num(c.gpu_hours)} GPU 小时，单价 {money(c.price.price_per_gpu_hour, r.currency)}/GPU 小时（{r.pricing}，{c.price.region}，{c.price.as_of}）。")
    rows = [(f"{o.price.name} ({o.price.provider})", f"{money(o.total_cost, r.currency)} · {num(o.hours)} h") for o in r.options[:5]]
    return head, rows


def _break_even(r, lang: str, catalog: Catalog) -> Rendered:
    gpu = gpu_name(catalog, r.gpu)
    cheaper = pick(lang, "owning (on-prem)" if r.cheaper == "on-prem" else "renting (cloud)", "自建" if r.cheaper == "on-prem" else "上云租用")
    head = pick(lang, f"**At {pct(r.utilization)} utilization, {cheaper} is cheaper for {r.gpus} × {gpu}**: on-prem {money(r.onprem_yearly_cost, r.currency)}/year vs cloud {money(r.cloud_yearly_cost, r.currency)}/year.",
                f"**{r.gpus} 张 {gpu} 在 {pct(r.utilization)} 利用率下，{cheaper}更便宜**：自建每年 {money(r.onprem_yearly_cost, r.currency)}，上云每年 {money(r.cloud_yearly_cost, r.currency)}。")
    if r.break_even_utilization is not None:
        head += pick(lang, f" Break-even at {pct(r.break_even_utilization)} utilization.", f" 盈亏平衡点在 {pct(r.break_even_utilization)} 利用率。")
    if r.months_to_recover_capex is not None:
        head += pick(lang, f" Capex ({money(r.capex, r.currency)}) is recovered in about {num(r.months_to_recover_capex)} months.",
                     f" 资本支出（{money(r.capex, r.currency)}）约 {num(r.months_to_recover_capex)} 个月回本。")
    return head, None


def _shape(c, lang: str) -> str:
    """The node shape in the words people rent by: "one 8-GPU node" / "单机 8 卡", "2 nodes × 8 GPUs" / "2 台 × 8 卡"."""
    if c.nodes > 1:
        return pick(lang, f"{c.nodes} nodes × {c.gpus_per_node} GPUs", f"{c.nodes} 台 × 每台 {c.gpus_per_node} 卡")
    if c.gpus > 1:
        return pick(lang, f"one {c.gpus}-GPU node", f"单机 {c.gpus} 卡")
    return pick(lang, "one GPU", "单卡")


def _recommend(r, lang: str, catalog: Catalog) -> Rendered:
    rec = r.recommended
    c = rec.configuration
    tier = _tier(rec.tier, r.task, lang)
    where = f"{c.instance.name} · {c.instance.provider}" if c.instance else pick(lang, "on-prem", "自建")
    head = pick(lang, f"**Recommendation: {tier} — {c.gpus} × {c.gpu_name}, {_shape(c, lang)}** ({where})",
                f"**推荐：{tier} —— {c.gpus} × {c.gpu_name}，{_shape(c, lang)}**（{where}）")
    if rec.hours:
        head += pick(lang, f", about {duration_band(rec.hours, lang)}", f"，约 {duration_band(rec.hours, lang)}")
    if rec.cost:
        head += pick(lang, f", about {money_band(rec.cost, r.currency, lang)}", f"，费用约 {money_band(rec.cost, r.currency, lang)}")
    head += "." if lang == "en" else "。"
    return head, None


SERVING_TIER = {"entry": ("single-GPU serving", "单卡推理部署"), "mid": ("single-node serving", "单节点推理部署"),
                "production": ("multi-node serving", "多节点推理集群")}


def _tier(tier: str, task: str, lang: str) -> str:
    """Tier names speak of training; a serving plan gets serving names."""
    names = SERVING_TIER if task == "inference" else TIER
    return names[tier][1 if lang == "zh" else 0]


def _network(text: str, lang: str) -> str:
    """The sizing core writes "100 Gb/s, RDMA: none"; a Chinese answer says it in Chinese."""
    if lang != "zh":
        return text
    return text.replace("RDMA: none", "无 RDMA").replace("RDMA: ", "RDMA：")


def _interconnect(text: str, lang: str) -> str:
    """"NVLink 3 (NVSwitch on HGX A100), 600 GB/s" without its English gloss in a Chinese answer."""
    link, _, bandwidth = text.rpartition(", ")
    return f"{link_name(link, lang)}, {bandwidth}" if link else link_name(text, lang)


def _band(band) -> Band | None:
    return Band(low=band.low, typical=band.typical, high=band.high) if band is not None else None


def recommendation(r, lang: str, catalog: Catalog) -> Recommendation:
    """The recommend tool's output as the contract's typed Recommendation, in the answer's language."""
    rec, c = r.recommended, r.recommended.configuration
    options = [RecommendedOption(
        label=alt.label, label_text=ALTERNATIVE[alt.label][1 if lang == "zh" else 0], tier=alt.tier, gpu=alt.configuration.gpu,
        gpu_name=alt.configuration.gpu_name, gpus=alt.configuration.gpus, nodes=alt.configuration.nodes, gpus_per_node=alt.configuration.gpus_per_node,
        instance=alt.configuration.instance.name if alt.configuration.instance else None, hours=_band(alt.hours), cost=_band(alt.cost),
        cost_per_hour=alt.cost_per_hour, meets_deadline=alt.meets_deadline, within_budget=alt.within_budget) for alt in r.alternatives]
    if r.task == "inference":  # a serving plan: weights and how they are split, no training vocabulary
        strategy = pick(lang, f"{c.precision} weights, " + (f"tensor parallel across {c.gpus} GPUs" if c.gpus > 1 else "one GPU"),
                        f"{c.precision} 权重，" + (f"{c.gpus} 卡张量并行" if c.gpus > 1 else "单卡"))
    else:
        strategy = pick(lang, f"{c.precision}, {SHARDING[c.sharding][0]}, activation recomputation: {c.recompute}",
                        f"{c.precision}，{SHARDING[c.sharding][1]}，激活重计算（activation checkpointing）：{c.recompute}")
    return Recommendation(
        tier=rec.tier, tier_name=_tier(rec.tier, r.task, lang), task=r.task, method=r.method, model=r.model,
        model_name=model_name(catalog, r.model), gpu=c.gpu, gpu_name=c.gpu_name, gpus=c.gpus, nodes=c.nodes, gpus_per_node=c.gpus_per_node,
        instance=c.instance.name if c.instance else None, instance_provider=c.instance.provider if c.instance else None,
        per_gpu_memory_gib=c.per_gpu_memory_gib, gpu_memory_gib=c.gpu_memory_gib, precision=c.precision, sharding=c.sharding,
        recompute=c.recompute, strategy=strategy, interconnect=_interconnect(c.scale_up, lang), hours=_band(rec.hours), cost=_band(rec.cost), currency=r.currency,
        deployment=r.deployment, deployment_reason=r.deployment_reason_zh if lang == "zh" else r.deployment_reason_en,
        cpu=localized(c.cpu, lang), ram_gb_per_node=c.ram_gb_per_node, storage=localized(c.storage, lang), network=_network(localized(c.network, lang), lang),
        alternatives=options,
    )


RENDERERS = {
    "training-memory": _memory, "training-time": _time, "gpus-for-deadline": _deadline, "tokens-in-budget": _budget_tokens,
    "training-compute": _compute, "inference": _inference, "allreduce": _allreduce, "nccl-expected": _nccl,
    "data-loader": _data_loader, "checkpoint": _checkpoint, "cost": _cost, "break-even": _break_even, "recommend": _recommend,
}
