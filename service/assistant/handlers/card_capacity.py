"""What one card can run and fine-tune, for a question that names the card (or its memory) but no model.

"3060 12G 能本地跑啥模型", "rtx 4060 8gb, can I fine-tune anything": asking for the model back answers nothing. An
expert states the card's memory, then the largest model that fits for each way of running it (16-bit, INT8 and INT4
weights for inference; full, LoRA and QLoRA for fine-tuning). Each row comes from the same sizing tools the rest of
the assistant uses (inference, training-memory), run over a ladder of catalog models of increasing size, so every
figure in the answer is a tool output. The table for the purpose the question names comes first; with none, both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.assistant import cues
from service.assistant.compose.fmt import num
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn

CUES = "card_capacity_cues.yaml"
# One dense family at every size users ask about, smallest first; the model names carry the size ("Qwen2.5-7B").
LADDER = ("qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b")
WEIGHT_FORMATS = ("int4", "int8", "16-bit")  # the largest model first: what most askers of a small card want
METHODS = ("qlora", "lora", "full")
MAX_GPUS = 8


@dataclass
class Row:
    """The largest ladder model one way of running fits, and the next size up that does not."""

    option: str  # a weight format or a fine-tuning method
    fits: object | None = None  # the tool result of the largest model that fits
    model: str | None = None
    rung: int = -1  # its place on the ladder
    too_big: object | None = None  # the tool result of the first model that does not fit
    too_big_model: str | None = None


@dataclass
class Capacity:
    gpu: str
    name: str
    memory_gb: float
    gpus: int
    inference: list[Row] = field(default_factory=list)
    tuning: list[Row] = field(default_factory=list)

    def best(self, rows: list[Row]) -> Row | None:
        fitting = [r for r in rows if r.fits is not None]
        return max(fitting, key=lambda r: r.rung, default=None)


def purpose(ctx: Context) -> tuple[bool, bool]:
    """(inference asked, fine-tuning asked) from the task slot and the question's words."""
    s = ctx.slots
    tune = s.task == "fine-tune" or s.method is not None or cues.matches(CUES, "fine_tune", ctx.text)
    serve = s.task == "inference" or s.weights is not None or cues.matches(CUES, "inference", ctx.text)
    return serve, tune


def asks_capacity(text: str) -> bool:
    return cues.matches(CUES, "asks_capacity", text)


def llm_work(text: str) -> bool:
    """False for diffusion or vision work: a ladder of language-model sizes does not answer it."""
    return not cues.matches(CUES, "not_llm", text)


def applies(ctx: Context) -> bool:
    s = ctx.slots
    return llm_work(ctx.text) and (
        bool(s.gpu) and s.gpu in ctx.catalog.gpus and not (s.model or s.params_b) and s.task != "pretrain" and (s.gpus or 1) <= MAX_GPUS and not s.compare_gpus
    )


def measure(ctx: Context, gpu_id: str, gpus: int = 1, *, inference: bool = True, tuning: bool = True) -> Capacity:
    """Run the sizing tools over the ladder for one card (or `gpus` of them)."""
    g = ctx.catalog.gpus[gpu_id]
    capacity = Capacity(gpu=gpu_id, name=g.name, memory_gb=g.memory_gb, gpus=gpus)
    if inference:
        sixteen = "bf16" if g.supports_bf16 else "fp16"
        for fmt in WEIGHT_FORMATS:
            weights = sixteen if fmt == "16-bit" else fmt
            capacity.inference.append(_climb(ctx, weights, "inference", {"gpu": gpu_id, "gpus": gpus, "weights": weights, "concurrency": 1}))
    if tuning:
        for method in METHODS:
            payload = {"gpu": gpu_id, "gpus": gpus, "task": "fine-tune", "method": method, "sharding": "zero3" if gpus > 1 else "none"}
            capacity.tuning.append(_climb(ctx, method, "training-memory", payload))
    return capacity


def _climb(ctx: Context, option: str, tool: str, payload: dict) -> Row:
    """Up the ladder until a model does not fit: the last that fits and the first that does not."""
    row = Row(option=option)
    for rung, model_id in enumerate(LADDER):
        result, _ = ctx.try_run(tool, {"model": model_id, **payload})
        if result is None:
            continue
        if result.fit == "does_not_fit":
            row.too_big, row.too_big_model = result, ctx.catalog.models[model_id].name
            break
        row.fits, row.model, row.rung = result, ctx.catalog.models[model_id].name, rung
    return row


def _need(result) -> float:
    return result.per_gpu_total_gib if hasattr(result, "per_gpu_total_gib") else result.per_gpu.total_gib


def answer(ctx: Context) -> Draft | None:
    """The capacity answer for the card the question names; None when it does not apply."""
    if not applies(ctx):
        return None
    serve, tune = purpose(ctx)
    gpus = ctx.slots.gpus or 1
    capacity = measure(ctx, ctx.slots.gpu, gpus)
    first = "tuning" if tune and not serve else "inference"
    lang = ctx.lang
    blocks: list = [LeadBlock(text=lead(ctx, capacity, first))]
    if ctx.slots.card_memory_gb:
        blocks.append(NoticeBlock(kind="assumption", text=say("consult.stand_in", lang, gb=ctx.slots.card_memory_gb, gpu=capacity.name)))
    tables = {"inference": inference_table(ctx, capacity), "tuning": tuning_table(ctx, capacity)}
    order = [first, "tuning" if first == "inference" else "inference"]
    for kind in order:
        blocks += [ParagraphBlock(text=say(f"card_capacity.{kind}_title", lang)), tables[kind]]
    blocks.append(NoticeBlock(kind="assumption", text=assumptions(ctx, capacity)))
    blocks.append(ParagraphBlock(text=say("card_capacity.beyond", lang)))
    works = [
        (f"{r.fits.tool} ({r.model}, {r.option})", r.fits.work) for r in (capacity.best(capacity.inference), capacity.best(capacity.tuning)) if r is not None
    ]
    best_tune = capacity.best(capacity.tuning)
    follow = [
        say("card_capacity.follow_model", lang, model=(best_tune.model if best_tune else ctx.catalog.models[LADDER[0]].name)),
        say("card_capacity.follow_bigger", lang),
        say("workload.follow_with_model", lang),
    ]
    return Draft(blocks=blocks, works=works, follow_ups=follow, show_sources=False)


def card_name(ctx: Context, capacity: Capacity) -> str:
    """ "RTX 3060 (12 GB)", or "2 × RTX 4090 (24 GB each)"."""
    if capacity.gpus == 1:
        return say("card_capacity.card", ctx.lang, gpu=capacity.name, memory=num(capacity.memory_gb))
    return say("card_capacity.cards", ctx.lang, gpus=capacity.gpus, gpu=capacity.name, memory=num(capacity.memory_gb))


def lead(ctx: Context, capacity: Capacity, first: str) -> str:
    lang = ctx.lang
    card = card_name(ctx, capacity)
    parts = {"inference": summary(ctx, capacity.inference, "inference"), "tuning": summary(ctx, capacity.tuning, "tuning")}
    second = "tuning" if first == "inference" else "inference"
    return say("card_capacity.lead", lang, card=card, first=parts[first], second=parts[second])


def summary(ctx: Context, rows: list[Row], kind: str) -> str:
    lang = ctx.lang
    # Rows run from the smallest footprint per parameter to the largest: for a model two rows share, the later
    # (higher precision, or more weights trained) is the better way to run it.
    best: dict[str, Row] = {r.model: r for r in rows if r.fits is not None and r.model}
    fitted = [say(f"card_capacity.up_to_{kind}", lang, option=label(r.option, lang), model=r.model, need=num(_need(r.fits))) for r in best.values()]
    if not fitted:
        return say(f"card_capacity.nothing_{kind}", lang)
    return say(f"card_capacity.summary_{kind}", lang, items=say("card_capacity.separator", lang).join(fitted))


def label(option: str, lang: str) -> str:
    return say(f"card_capacity.option.{option}", lang)


def inference_table(ctx: Context, capacity: Capacity) -> TableBlock:
    lang = ctx.lang
    rows = []
    for r in capacity.inference:
        speed = r.fits.decode_tokens_per_second.typical if r.fits is not None and r.fits.decode_tokens_per_second else None
        rows.append([TableCell(text=label(r.option, lang)), *_fit_cells(r, lang), TableCell(text=f"{num(speed)} tokens/s" if speed else "—", value=speed)])
    return TableBlock(columns=[*_columns(lang), TableColumn(key="speed", label=say("card_capacity.column.speed", lang), align="right")], rows=rows)


def tuning_table(ctx: Context, capacity: Capacity) -> TableBlock:
    lang = ctx.lang
    rows = [[TableCell(text=label(r.option, lang)), *_fit_cells(r, lang)] for r in capacity.tuning]
    return TableBlock(columns=_columns(lang), rows=rows)


def _columns(lang: str) -> list[TableColumn]:
    return [
        TableColumn(key="option", label=say("card_capacity.column.option", lang)),
        TableColumn(key="largest", label=say("card_capacity.column.largest", lang)),
        TableColumn(key="memory", label=say("card_capacity.column.memory", lang), unit="GiB", align="right"),
        TableColumn(key="next", label=say("card_capacity.column.next", lang)),
    ]


def _fit_cells(r: Row, lang: str) -> list[TableCell]:
    if r.fits is None:
        largest = TableCell(text=say("card_capacity.none_fits", lang))
        memory = TableCell(text="—")
    else:
        tight = say("card_capacity.tight", lang) if r.fits.fit == "tight" else ""
        largest = TableCell(text=f"{r.model}{tight}")
        memory = TableCell(text=f"{num(_need(r.fits))} / {num(r.fits.gpu_memory_gib)} GiB", value=_need(r.fits))
    nxt = TableCell(text=say("card_capacity.next_needs", lang, model=r.too_big_model, need=num(_need(r.too_big))) if r.too_big is not None else "—")
    return [largest, memory, nxt]


def assumptions(ctx: Context, capacity: Capacity) -> str:
    """The inputs the rows share, read back from the tool results so the numbers are the tools'."""
    serve = next((r.fits or r.too_big for r in capacity.inference if r.fits or r.too_big), None)
    train = next((r.fits or r.too_big for r in capacity.tuning if r.fits or r.too_big), None)
    parts = []
    if serve is not None:
        parts.append(say("card_capacity.assume_inference", ctx.lang, context=num(serve.context_len)))
    if train is not None:
        parts.append(say("card_capacity.assume_tuning", ctx.lang, seq=num(train.seq_len), batch=num(train.micro_batch)))
    parts.append(say("card_capacity.assume_family", ctx.lang))
    return " ".join(parts)


def per_card_line(ctx: Context, capacity: Capacity) -> str:
    """One line per card for a comparison: memory, then what it fits for the purpose asked."""
    card = card_name(ctx, capacity)
    parts = [
        p
        for p in (
            summary(ctx, capacity.inference, "inference") if capacity.inference else None,
            summary(ctx, capacity.tuning, "tuning") if capacity.tuning else None,
        )
        if p
    ]
    return say("card_capacity.per_card", ctx.lang, card=card, items=say("card_capacity.clause_separator", ctx.lang).join(parts))
