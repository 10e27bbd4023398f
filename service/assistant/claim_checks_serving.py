"""A claimed GPU count for serving a model ("the integrator says we need 32 H100s to serve an 8B for 500 users").

The inference tool finds the fewest of those GPUs that hold the model and the KV cache of the concurrency the users
imply (the same share of users active at once as the serving plans assume), and the decode speed per user there. A
count several times that is over-provisioned for memory; extra copies only buy throughput, which the per-user speed
shows. Fewer than the minimum cannot hold it.
"""

from __future__ import annotations

from service.assistant import consult, cues
from service.assistant.compose.fmt import model_label, num, pct
from service.assistant.messages import say

COUNTS = (1, 2, 4, 8, 16, 32, 64)
OVER = 2.0  # claimed over the fewest that hold it: above this the count is set by something other than memory


def is_serving_count_claim(text: str, slots) -> bool:
    return bool((slots.model or slots.params_b) and slots.gpu and slots.gpus and slots.gpus > 1 and slots.task == "inference"
                and (slots.users or slots.concurrency) and cues.matches("claim_cues.yaml", "needs_count", text))


def serving_count_claim(ctx):
    from service.assistant.claim_checks import Finding
    from service.assistant.handlers.base import model_ref

    s, lang = ctx.slots, ctx.lang
    concurrency = s.concurrency or consult.concurrency_for_users(s.users, consult.peak_share(ctx.text))
    if not s.concurrency:
        ctx.record("concurrency-from-users", {"users": s.users, "peak_active_share": consult.peak_share(ctx.text)}, {"concurrency": concurrency})
    fewest = None
    for count in COUNTS:
        result, _ = ctx.try_run("inference", {**model_ref(ctx), "gpu": s.gpu, "gpus": count, "concurrency": concurrency, "weights": s.weights})
        if result is not None and result.fit != "does_not_fit":
            fewest = result
            break
    if fewest is None:
        return None
    claimed = s.gpus
    over = claimed / fewest.gpus
    verdict = "false" if over > OVER or claimed < fewest.gpus else "plausible"
    speed = fewest.decode_tokens_per_second.typical if fewest.decode_tokens_per_second else None
    ctx.record("claim-check", {"claimed_gpus": claimed, "gpu": s.gpu, "concurrency": concurrency},
               {"fewest_gpus": fewest.gpus, "claimed_over_fewest": over, "per_gpu_gib": fewest.per_gpu_total_gib,
                "decode_tokens_per_second_per_sequence": speed, "verdict": verdict})
    gpu = ctx.catalog.gpus[s.gpu].name
    model = model_label(ctx.catalog, fewest.model, fewest.params_b)
    values = {"claimed": claimed, "gpu": gpu, "model": model, "fewest": fewest.gpus, "need": num(fewest.per_gpu_total_gib),
              "concurrency": f"{concurrency:,}", "over": num(over), "speed": num(speed or 0)}
    key = "too_few" if claimed < fewest.gpus else "over" if over > OVER else "fits"
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(f"claim_serving.{key}", lang, **values)
    points = [say("claim_serving.speed", lang, **values)] if speed else []
    points.append(say("claim_serving.what_more_buys", lang))
    notes = [] if s.concurrency else [say("consult.users", lang, concurrency=concurrency, share=pct(consult.peak_share(ctx.text)), users=f"{s.users:,}")]
    return Finding("serving_count", verdict, lead, points, notes, [fewest], ["claims", "inference"])
