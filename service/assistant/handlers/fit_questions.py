"""Fit questions ("can a 4090 fine-tune Llama 3 8B", "70B 推理一张 H100 放得下吗") answered with every method or weight
format on the card named, led by the one that fits, kept apart from consulting.py, which decides when a question is one."""

from __future__ import annotations

import re

from service.assistant import consult
from service.assistant.compose import fit
from service.assistant.compose.fmt import gib, num
from service.assistant.handlers.base import Context, Draft, model_ref
from service.assistant.handlers.latency_target import concurrency_lead
from service.assistant.handlers.serving_notes import gqa_notes
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn

FIT_WORDS = {"fits": ("fits", "放得下"), "tight": ("fits, tightly", "勉强放得下"), "does_not_fit": ("does not fit", "放不下")}
BARE_FIT = re.compile(r"\b(?:will|would|does|do|can)\b.{0,60}\bfit\b|放得下|装得下|塞得下", re.I)


def fit_question(ctx: Context) -> Draft | None:
    s, text, lang = ctx.slots, ctx.text, ctx.lang
    if not (s.gpu and (s.model or s.params_b) and consult.cue("fit", text)) or s.tokens or s.deadline_hours:
        return None
    serving = s.task == "inference" or (s.task is None and (consult.cue("serving", text) or bool(s.weights)))  # INT4/FP8 weights: serving
    # "will Qwen 72B in bf16 fit on one H100?": with no training word, fitting the weights means running the model.
    # "will 405B fit on one 8x H100 node?": with no training word, a model that fits is a model that runs
    serving = serving or (s.task is None and not s.method and (consult.cue("loads_model", text) or bool(BARE_FIT.search(text)))
                          and not consult.cue("training_words", text))
    if s.weights and serving:
        return None  # a weight format was chosen: the literal answer is the right one
    if s.method and serving:
        return None
    gpus = s.gpus or 1
    eight_bit = not serving and s.weights == "int8" and s.method in (None, "lora")  # "LoRA in 8-bit", "load_in_8bit"
    options = consult.fit_options(ctx, model_ref(ctx), gpu=s.gpu, gpus=gpus, serving=serving, concurrency=s.concurrency or 1,
                                  context_len=s.context_len, seq_len=None if serving else s.seq_len, eight_bit_base=eight_bit)
    if not options:
        return None
    best = consult.best_fit(options)
    gpu = ctx.catalog.gpus[s.gpu]
    have = gpu.memory_gb * 1e9 / 2**30

    def need(option: consult.FitOption) -> float:
        r = option.result
        return r.per_gpu_total_gib if serving else r.per_gpu.total_gib

    label = {o.option: say(f"consult.method.{o.option}", lang) for o in options}
    wanted = "lora8" if eight_bit else s.method
    asked = next((o for o in options if o.option == wanted), None) if wanted else None
    if s.method and not eight_bit and (asked is None or asked.fit != "does_not_fit"):
        return None  # the method asked for fits (or could not be computed): the literal answer says so
    checkpointed = consult.with_checkpointing(ctx, asked, model_ref(ctx), gpu=s.gpu, gpus=gpus, seq_len=s.seq_len) \
        if asked is not None and asked.fit == "does_not_fit" and not serving else None
    if checkpointed is not None and checkpointed.fit == "fits":  # "tight" with checkpointing stays a no: the remedies say how close
        # "Can I LoRA 13B in 8-bit on my 3090?": it fits once every layer recomputes its activations; that is the answer.
        lead = say("consult.fit_with_checkpointing", lang, option=label[asked.option], need=num(need(checkpointed)), gpu=gpu.name,
                   gb=num(gpu.memory_gb), have=num(have), without=num(need(asked)))
    elif asked is not None and asked.fit != "does_not_fit":
        # "LoRA in 8-bit on my 3090?": the base asked about fits, and that is the answer.
        key = "fit_advice.fit_tight" if asked.fit == "tight" else "consult.fit_yes"
        lead = say(key, lang, option=label[asked.option], need=num(need(asked)), gpu=gpu.name, gb=num(gpu.memory_gb), have=num(have))
    elif asked is not None:
        # "4090 能全参微调 7B 吗": answer the method asked about first, then what does fit.
        lead = say("consult.fit_asked_no", lang, option=label[asked.option], need=num(need(asked)), gpu=gpu.name, gb=num(gpu.memory_gb), have=num(have))
        if best is not None:
            lead += " " + say("consult.fit_instead", lang, option=label[best.option], need=num(need(best)))
    elif best is None:
        lead = say("fit_advice.no_prefix", lang) + " " + say("consult.fit_none", lang, gpus=gpus, gpu=gpu.name, option=label[options[-1].option],
                                                             need=num(need(options[-1])), gb=num(gpu.memory_gb), have=num(have))
    elif best.fit == "tight":
        lead = say("fit_advice.fit_tight", lang, option=label[best.option], need=num(need(best)), gpu=gpu.name, gb=num(gpu.memory_gb), have=num(have))
    else:
        lead = say("consult.fit_yes", lang, option=label[best.option], need=num(need(best)), gpu=gpu.name, gb=num(gpu.memory_gb), have=num(have))
        if best is not options[0]:
            lead += " " + say("consult.fit_not_first", lang, first=label[options[0].option], first_need=num(need(options[0])), option=label[best.option])
    columns = [TableColumn(key="option", label=say("consult.fit_table_option", lang)),
               TableColumn(key="memory", label=say("consult.fit_table_memory", lang), unit="GiB", align="right"),
               TableColumn(key="fit", label=say("consult.fit_table_fit", lang))]
    rows = [[TableCell(text=label[o.option]), TableCell(text=gib(need(o)), value=need(o)),
             TableCell(text=FIT_WORDS[o.fit][1 if lang == "zh" else 0])] for o in options]
    blocks = [LeadBlock(text=lead), TableBlock(columns=columns, rows=rows), _where_memory_goes(ctx, options[0], label, serving, gpus)]
    ceiling = concurrency_lead(ctx, best.result) if serving and best is not None else []
    if ceiling:
        blocks[0:1] = [LeadBlock(text=ceiling[0].text), ParagraphBlock(text=lead)]  # "能同时跑几条?": the count leads
    elif serving and best is not None and best.result.max_concurrency is not None:
        blocks.insert(1, _kv_room(ctx, best, label[best.option]))
    if s.card_memory_gb:
        # "24G显存的卡": the catalog card of that size stood in; memory is what decides the fit.
        blocks.insert(1, NoticeBlock(kind="assumption", text=say("consult.stand_in", lang, gb=s.card_memory_gb, gpu=gpu.name)))
    focus = asked or best or options[-1]
    if not serving:
        blocks.append(fit.breakdown(ctx, focus.result, label[focus.option]))
        if gpus > 1 and gpu.scale_up is None and focus.option == "full":
            # the note agrees with the lead: "it fits, but PCIe sets the pace", or "and even sharded, PCIe would"
            key = "consult.fit_pcie_training_no" if focus.fit == "does_not_fit" else "consult.fit_pcie_training"
            ctx.record("catalog-lookup", {"gpu": gpu.id}, {"pcie_gen": gpu.pcie_gen, "pcie_gbps_per_direction": gpu.pcie_gbps_per_direction})
            blocks.append(ParagraphBlock(text=say(key, lang, gpu=gpu.name, gpus=gpus, pcie=gpu.pcie_gen, bw=num(gpu.pcie_gbps_per_direction))))
    if best is None or best.fit == "tight":
        # The ladder of fixes, and the smallest card on which the cheapest option fits.
        cheapest = options[-1]
        tool = "inference" if serving else "training-memory"
        payload = ({**model_ref(ctx), "gpus": gpus, "weights": cheapest.option, "concurrency": s.concurrency or 1, "context_len": s.context_len} if serving
                   else {**model_ref(ctx), "task": "fine-tune", "method": cheapest.option, "gpus": gpus, **({"sharding": "zero3"} if gpus > 1 else {})})
        blocks += fit.remedies(ctx, (best or cheapest).result, tool, payload)
    if serving:
        blocks += gqa_notes(ctx) + [ParagraphBlock(text=say("consult.serving_stack", lang))]
    chosen = best or options[-1]
    topics = ["inference"] if serving else ["peft", "memory"]
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=topics), works=[(chosen.result.tool, chosen.result.work)],
                 follow_ups=[say("consulting.follow_recommend", ctx.lang),
                             say("consulting.follow_fine_tune_time", ctx.lang) if not serving else say("consulting.follow_users", ctx.lang)])


TIGHT_SEQUENCES = 4  # fewer concurrent sequences than this at the planned context is a tight fit for serving


def _kv_room(ctx: Context, best: consult.FitOption, option: str) -> ParagraphBlock:
    """What a model that loads can serve: the sequences the memory left after the weights holds (the inference tool's count)."""
    r = best.result
    n = r.max_concurrency or 0
    key = "consult.fit_kv_none" if n == 0 else "consult.fit_kv_tight" if n < TIGHT_SEQUENCES else "consult.fit_kv_room"
    return ParagraphBlock(text=say(key, ctx.lang, option=option, n=f"{n:,}", context=f"{r.context_len:,}", kv=num(r.kv_per_sequence_gib)))


def _where_memory_goes(ctx: Context, first: consult.FitOption, label: dict, serving: bool, gpus: int) -> ParagraphBlock:
    """The most demanding option's memory in totals (GiB and GB), so the reader can check it against the cards."""
    gpu = ctx.catalog.gpus[ctx.slots.gpu]
    total = gpus * gpu.memory_gb * 1e9 / 2**30
    ctx.record("catalog-lookup", {"gpu": gpu.id, "gpus": gpus}, {"total_memory_gb": gpus * gpu.memory_gb, "total_memory_gib": total})
    common = {"option": label[first.option], "total": num(total), "total_gb": num(gpus * gpu.memory_gb), "gpus": gpus, "gpu": gpu.name}
    if serving:
        weights = first.result.weights_gib
        ctx.record("unit-conversion", {"weights_gib": weights}, {"weights_gb": weights * 2**30 / 1e9})
        return ParagraphBlock(text=say("consult.fit_weights_serving", ctx.lang, weights=num(weights), weights_gb=num(weights * 2**30 / 1e9), **common))
    states = first.result.model_states_total_gib
    r = first.result
    per_gpu = r.per_gpu.weights_gib + r.per_gpu.gradients_gib + r.per_gpu.optimizer_gib
    ctx.record("unit-conversion", {"model_states_gib": states, "gpus": gpus, "bytes_per_param": r.bytes_per_param},
               {"model_states_gb": states * 2**30 / 1e9, "model_states_per_gpu_gib": per_gpu})
    key = "consult.fit_states_training" if gpus > 1 else "consult.fit_states_training_one"
    return ParagraphBlock(text=say(key, ctx.lang, states=num(states), states_gb=num(states * 2**30 / 1e9),
                                   bpp=num(r.bytes_per_param), params_b=num(r.params_b), per_gpu=num(per_gpu), **common))
