"""Non-LLM serving with no parameter count: image generation (Stable Diffusion / SDXL / ComfyUI) and speech
transcription (Whisper). A consultant sizes these from a published per-image time or real-time factor, not with
"which model?":

- image_gen: SDXL at 1024×1024, 30 steps, batch 1 takes a published time on an A100 80GB (diffusers docs); other
  cards scale by dense FP16 tensor throughput (denoising is compute-bound). Cards = daily images × seconds per image
  ÷ (86,400 s × target utilisation).
- speech: faster-whisper large-v2 (the large-v3 size) transcribes a published clip in a published time on a V100S;
  other cards scale by memory bandwidth (decoding reads the weights for every token). Cards = daily audio hours ÷
  (24 h × real-time factor × target utilisation).
Every figure is recorded as a tool call with its source; cheapest per unit of work first when cost is the ask.
"""

from __future__ import annotations

import math
import re

from service.assistant import cues
from service.assistant.numbers import quantities
from service.assistant.compose.fmt import money, num, pct
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn

CARDS = ("l4", "a10", "rtx-4090", "l40s", "a100-80gb-sxm")
UTILISATION = 0.5  # target busy share: daily demand peaks above its mean, and queues need headroom
SDXL = {
    "gpu": "a100-80gb-sxm",
    "seconds": 3.3,
    "steps": 30,
    "resolution": 1024,
    "params_b": 3.5,
    "source": "Hugging Face diffusers docs, Accelerate inference of text-to-image diffusion models (SDXL, A100 80GB, bf16 + SDPA)",
    "url": "https://huggingface.co/docs/diffusers/tutorials/fast_diffusion",
}
WHISPER = {
    "audio_s": 13 * 60,
    "seconds": 54.0,
    "bandwidth_gbps": 1134.0,
    "params_b": 1.55,
    "ref_gpu": "Tesla V100S",
    "source": "SYSTRAN faster-whisper README, benchmark: large-v2, fp16, beam 5, 13 minutes of audio on a Tesla V100S in 54 s",
    "url": "https://github.com/SYSTRAN/faster-whisper",
}
COUNT = r"(\d[\d,]*(?:\.\d+)?)\s*(万|千|k|thousand|million|m)?"
IMAGES = re.compile(COUNT + r"\s*(?:张|幅|images?|pictures?|pics?|generations?)", re.I)
HOURS = re.compile(COUNT + r"\s*(?:个)?\s*(?:小时|hours?|hrs?|h\b)", re.I)
MINUTES = re.compile(COUNT + r"\s*(?:分钟|minutes?|mins?)", re.I)
PER_MONTH = re.compile(r"每月|一个月|per month|a month|monthly|/\s*month", re.I)
CHEAP = re.compile(r"性价比|便宜|省钱|成本|预算|cost[- ]effective|cheap|budget|economical|affordable|low[- ]cost", re.I)
SCALE = {"万": 1e4, "千": 1e3, "k": 1e3, "thousand": 1e3, "million": 1e6, "m": 1e6}


def kind_of(text: str) -> str | None:
    for name in ("image_gen", "speech"):
        if cues.matches("workload_archetypes.yaml", name, text):
            return name
    return None


def _arabic(text: str) -> str:
    """ "一万五千张" -> "15000张": Chinese numerals (and adjacent 万 + 千 parts) as one Arabic number."""
    parts = [q for q in quantities(text) if not text[q[1] : q[2]].isascii()]
    out, at, i = [], 0, 0
    while i < len(parts):
        value, start, end = parts[i]
        while i + 1 < len(parts) and parts[i + 1][1] == end and parts[i + 1][0] < value:
            i += 1
            value, end = value + parts[i][0], parts[i][2]
        out += [text[at:start], f"{value:g}"]
        at, i = end, i + 1
    return "".join(out) + text[at:]


def _count(pattern: re.Pattern, text: str) -> float | None:
    """The largest count before the unit ("一张4090，每天两万张图" is 20,000 images, not one)."""
    text = _arabic(text)
    values = [float(m.group(1).replace(",", "")) * SCALE.get((m.group(2) or "").lower(), 1) for m in pattern.finditer(text)]
    if not values or max(values) <= 1:
        return None
    value = max(values)
    return value / 30 if PER_MONTH.search(text) else value


def _price(ctx: Context, gpu_id: str, currency: str) -> float | None:
    result, _ = ctx.try_run("cost", {"gpu_hours": 1.0, "gpu": gpu_id, "gpus": 1, "currency": currency})
    return result.cheapest.price.price_per_gpu_hour if result is not None and result.cheapest else None


def answer(ctx: Context) -> Draft | None:
    kind = kind_of(ctx.text)
    if kind is None or ctx.slots.model or ctx.slots.params_b:
        return None
    lang, text = ctx.lang, ctx.text
    currency = ctx.slots.currency or ("CNY" if lang == "zh" else "USD")
    cheap = bool(CHEAP.search(text))
    notes: list[str] = []
    if kind == "image_gen":
        daily = _count(IMAGES, text)
        if daily is None:
            daily = 10_000.0
            notes.append(say("media.assumed_images", lang, n=f"{daily:,.0f}"))
        ref = ctx.catalog.gpus[SDXL["gpu"]]
        rows = []
        for gpu_id in CARDS:
            gpu = ctx.catalog.gpus.get(gpu_id)
            if gpu is None or not gpu.dense_tflops("fp16"):
                continue
            seconds = SDXL["seconds"] * ref.dense_tflops("fp16") / gpu.dense_tflops("fp16")
            cards = max(1, math.ceil(daily * seconds / (86_400 * UTILISATION)))
            rows.append((gpu, seconds, 3600 / seconds, cards))
        ctx.record(
            "image-gen-sizing",
            {
                "images_per_day": daily,
                "reference_seconds_per_image": SDXL["seconds"],
                "reference_gpu": ref.id,
                "params_b": SDXL["params_b"],
                "utilisation": UTILISATION,
                "source": SDXL["url"],
            },
            {g.id: {"seconds_per_image": s, "images_per_hour": ph, "cards": c} for g, s, ph, c in rows},
        )
    else:
        daily = _count(HOURS, text) or ((_count(MINUTES, text) or 0) / 60 or None)
        if daily is None:
            daily = 100.0
            notes.append(say("media.assumed_audio", lang, n=num(daily)))
        ref_rtf = WHISPER["audio_s"] / WHISPER["seconds"]
        rows = []
        for gpu_id in CARDS:
            gpu = ctx.catalog.gpus.get(gpu_id)
            if gpu is None:
                continue
            rtf = ref_rtf * gpu.memory_bandwidth_gbps / WHISPER["bandwidth_gbps"]
            cards = max(1, math.ceil(daily / (24 * rtf * UTILISATION)))
            rows.append((gpu, rtf, rtf, cards))
        ctx.record(
            "speech-sizing",
            {
                "audio_hours_per_day": daily,
                "reference_real_time_factor": ref_rtf,
                "reference_bandwidth_gbps": WHISPER["bandwidth_gbps"],
                "reference_seconds": WHISPER["seconds"],
                "reference_audio_seconds": WHISPER["audio_s"],
                "params_b": WHISPER["params_b"],
                "utilisation": UTILISATION,
                "source": WHISPER["url"],
            },
            {g.id: {"real_time_factor": r, "cards": c} for g, r, _, c in rows},
        )
    priced = []
    for gpu, per, rate, cards in rows:
        hourly = _price(ctx, gpu.id, currency)
        unit = hourly / rate if hourly else None  # per image, or per audio hour
        priced.append((gpu, per, rate, cards, hourly, unit))
    # Cheapest per image (per audio hour) first: the cost-effective choice, and a sound default when cost is not named.
    priced.sort(key=lambda r: (r[5] is None, r[5] or 0))
    best = priced[0]
    ctx.record(
        "media-ranking", {"cost_first": cheap, "currency": currency}, {g.id: {"price_per_gpu_hour": h, "cost_per_unit": u} for g, _, _, _, h, u in priced}
    )
    table = _table(lang, kind, priced, currency)
    ref = SDXL if kind == "image_gen" else WHISPER
    values = {
        "n": f"{daily:,.0f}" if kind == "image_gen" else num(daily),
        "gpu": best[0].name,
        "cards": best[3],
        "per": num(best[1]),
        "rate": num(best[2]),
        "util": pct(UTILISATION),
        "source": f"[{ref['source']}]({ref['url']})",
        "ref_s": num(ref["seconds"]),
        "params": num(ref["params_b"]),
    }
    lead_key = f"media.{kind}_lead_cheap" if cheap else f"media.{kind}_lead"
    blocks = [
        LeadBlock(text=say(lead_key, lang, **values)),
        *[NoticeBlock(kind="assumption", text=n) for n in notes],
        ParagraphBlock(text=say(f"media.{kind}_assumptions", lang, **values)),
        table,
        ParagraphBlock(text=say(f"media.{kind}_advice", lang)),
    ]
    return Draft(
        blocks=blocks,
        hits=ctx.retrieve(k=2, topics=["inference", "gpu-selection"]),
        follow_ups=[say("media.follow_buy", lang), say("media.follow_cloud", lang)],
    )


def _table(lang: str, kind: str, priced: list, currency: str) -> TableBlock:
    speed = say("media.col_seconds" if kind == "image_gen" else "media.col_rtf", lang)
    unit = say("media.col_cost_image" if kind == "image_gen" else "media.col_cost_hour", lang)
    columns = [
        TableColumn(key="gpu", label="GPU"),
        TableColumn(key="memory", label=say("media.col_memory", lang), align="right"),
        TableColumn(key="speed", label=speed, align="right"),
        TableColumn(key="cards", label=say("media.col_cards", lang), align="right"),
        TableColumn(key="price", label=say("media.col_price", lang), align="right"),
        TableColumn(key="unit", label=unit, align="right"),
    ]
    rows = []
    for gpu, per, _, cards, hourly, cost in priced:
        shown = f"{num(per)} s" if kind == "image_gen" else f"{num(per)}×"
        rows.append(
            [
                TableCell(text=gpu.name),
                TableCell(text=f"{num(gpu.memory_gb)} GB", value=gpu.memory_gb),
                TableCell(text=shown, value=per),
                TableCell(text=str(cards), value=cards),
                TableCell(text=money(hourly, currency) if hourly else "—", value=hourly),
                TableCell(text=money(cost, currency) if cost else "—", value=cost),
            ]
        )
    return TableBlock(columns=columns, rows=rows)
