"""Kinds of claims checked beside claim_checks: linear scaling (claim_checks_scaling), "X beats Y on every workload"
(claim_checks_vendor), a blanket memory figure for running a model (claim_checks_vram), a scaling-efficiency figure at
scale (claim_checks_efficiency), full training made to fit by offloading (claim_checks_offload) and a weight format
served on one card (claim_checks_weights)."""

from __future__ import annotations

from service.assistant import cues


def extra_kind(text: str, slots, gpus: list[str]) -> str | None:
    from service.assistant.claim_checks_scaling import is_scaling_claim
    from service.assistant.claim_checks_serving import is_serving_count_claim
    from service.assistant.claim_checks_efficiency import is_efficiency_claim
    from service.assistant.claim_checks_offload import is_offload_claim
    from service.assistant.claim_checks_vram import is_vram_claim
    from service.assistant.claim_checks_weights import is_weights_claim

    if is_efficiency_claim(text, slots):
        return "efficiency"  # "95% at 1,000 GPUs": before linear scaling, which the words may also match
    if is_offload_claim(text, slots):
        return "offload"
    if is_weights_claim(text, slots):
        return "weights"
    if is_serving_count_claim(text, slots):
        return "serving_count"
    if len(gpus) >= 2 and cues.matches("claim_cues.yaml", "every_workload", text):
        return "every_workload"
    if len(gpus) <= 1 and is_scaling_claim(text, slots):
        return "scaling"
    return "vram" if is_vram_claim(text, slots) else None


def _scaling(ctx):
    from service.assistant.claim_checks_scaling import scaling_claim

    return scaling_claim(ctx)


def _every_workload(ctx):
    from service.assistant.claim_checks_vendor import every_workload

    return every_workload(ctx)


def _vram(ctx):
    from service.assistant.claim_checks_vram import vram_claim

    return vram_claim(ctx)


def _serving_count(ctx):
    from service.assistant.claim_checks_serving import serving_count_claim

    return serving_count_claim(ctx)


def _efficiency(ctx):
    from service.assistant.claim_checks_efficiency import efficiency_claim

    return efficiency_claim(ctx)


def _offload(ctx):
    from service.assistant.claim_checks_offload import offload_claim

    return offload_claim(ctx)


def _weights(ctx):
    from service.assistant.claim_checks_weights import weights_claim

    return weights_claim(ctx)


EXTRA_CHECKS = {"scaling": _scaling, "every_workload": _every_workload, "vram": _vram, "serving_count": _serving_count,
                "efficiency": _efficiency, "offload": _offload, "weights": _weights}
