"""A slow network between machines ("communication is 90% of the step on our 1 Gbit/s NIC, should we upgrade?"): the
verdict from the all-reduce tool at the user's link speed against 100 Gbit/s and 400 Gb/s InfiniBand.

Data-parallel training all-reduces the gradients every optimizer step; with no model named the gradients of a
1B-parameter model (BF16, 2 GB) stand in, between two nodes of one GPU each, the most forgiving layout: if even that
is slow, a bigger job is slower. Cue words are data (network_cues.yaml); sentences are in the message catalog (slow_network.*).
"""

from __future__ import annotations

from service.assistant import cues
from service.assistant.compose.fmt import num
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.contract import BulletsBlock, LeadBlock
from service.sizing.defaults import DEFAULT_GPU

CUES = "network_cues.yaml"
SLOW_LINK_GBPS = 25  # below this a link between training nodes is the bottleneck for any model worth spreading over nodes
STAND_IN_PARAMS_B = 1.0
COMPARED = (("ethernet-100", 100.0), ("infiniband-ndr", 400.0))


def applies(ctx: Context) -> bool:
    s = ctx.slots
    return bool(s.nic_gbps and s.nic_gbps < SLOW_LINK_GBPS and cues.matches(CUES, "multinode", ctx.text) and cues.matches(CUES, "asks", ctx.text))


def _allreduce(ctx: Context, base: dict, fabric: str, gbps: float):
    result, _ = ctx.try_run("allreduce", {**base, "inter_fabric": fabric, "nic_gbps_per_gpu": gbps})
    return result


def answer(ctx: Context) -> Draft | None:
    if not applies(ctx):
        return None
    s, lang = ctx.slots, ctx.lang
    named = s.model or s.params_b
    base = {"gpu": s.gpu or DEFAULT_GPU, "gpus": 2, "gpus_per_node": 1,
            **({"model": s.model} if s.model else {"params_b": s.params_b or STAND_IN_PARAMS_B})}
    theirs = _allreduce(ctx, base, "ethernet-25", s.nic_gbps)
    others = [(gbps, r) for fabric, gbps in COMPARED if (r := _allreduce(ctx, base, fabric, gbps)) is not None]
    if theirs is None or len(others) < len(COMPARED):
        return None
    (g100, r100), (g400, r400) = others
    model = say("slow_network.model_named", lang) if named else say("slow_network.model_stand_in", lang, params=num(STAND_IN_PARAMS_B))
    lead = say("slow_network.lead", lang, gbps=num(s.nic_gbps), model=model, size=num(theirs.size_mb / 1000), seconds=num(theirs.total_ms / 1000),
               g100=num(g100), s100=num(r100.total_ms / 1000), g400=num(g400), s400=num(r400.total_ms / 1000))
    points = [say("slow_network.upgrade", lang, g100=num(g100), g400=num(g400)), say("slow_network.meanwhile", lang), say("slow_network.measure", lang)]
    return Draft(blocks=[LeadBlock(text=lead), BulletsBlock(items=points)], works=[("allreduce", theirs.work)], show_sources=False)
