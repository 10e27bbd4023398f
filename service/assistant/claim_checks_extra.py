"""Kinds of claims checked beside claim_checks: linear scaling (claim_checks_scaling), "X beats Y on every workload"
(claim_checks_vendor) and a blanket memory figure for running a model (claim_checks_vram)."""

from __future__ import annotations

from service.assistant import cues


def extra_kind(text: str, slots, gpus: list[str]) -> str | None:
    from service.assistant.claim_checks_scaling import is_scaling_claim
    from service.assistant.claim_checks_serving import is_serving_count_claim
    from service.assistant.claim_checks_vram import is_vram_claim

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


EXTRA_CHECKS = {"scaling": _scaling, "every_workload": _every_workload, "vram": _vram, "serving_count": _serving_count}
