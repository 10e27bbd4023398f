"""RL post-training (GRPO, PPO, RLHF, DPO) on top of a training plan.

The plan sizes the policy being trained. RL holds more beside it: a frozen reference copy for the KL penalty (DPO
too), a rollout engine with its own copy of the weights and a KV cache (GRPO, PPO), and for PPO a critic trained like
the policy. Their memory is computed here (bytes per parameter × parameters, recorded) and held against what the
plan leaves free on its GPUs; the set-up advice (colocated or separate rollout GPUs, frameworks) is message text.
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import num
from service.assistant.handlers.base import Context, Draft, model_params
from service.assistant.messages import say
from service.contract import ParagraphBlock

I = re.IGNORECASE
# (?<![a-z]) rather than \b: in "用PPO对" the Chinese characters count as word characters.
ROLLOUT_RL = re.compile(
    r"(?<![a-z])(?:grpo|ppo|rlhf|dapo|rloo|verl|openrlhf)(?![a-z])|reinforcement learning|强化学习|(?<![a-z])rl\s*(?:training|fine[- ]?tun\w*|训练|微调)|rollouts?",
    I,
)
PREFERENCE = re.compile(r"(?<![a-z])(?:dpo|simpo|orpo)(?![a-z])|偏好(?:优化|对齐|训练)|preference (?:optimi[sz]ation|tuning)", I)
PPO = re.compile(r"(?<![a-z])(?:ppo|rlhf)(?![a-z])|critic|value model|价值模型", I)
BF16_BYTES = 2
TRAINING_BYTES = 16  # a critic trained with Adam in mixed precision: weights, gradients, fp32 master and two moments
GIB = 2**30


def rl_setup(ctx: Context, draft: Draft) -> None:
    """After a fine-tuning plan: what RL adds to it. Does nothing for other plans or questions."""
    rollout, preference = ROLLOUT_RL.search(ctx.text), PREFERENCE.search(ctx.text)
    rec = draft.recommendation
    if not (rollout or preference) or not rec or rec.get("task") == "inference" or draft.clarification is not None:
        return
    params = model_params(ctx)
    if params is None:
        return
    lora = ctx.slots.method in ("lora", "qlora")
    ppo = bool(rollout and PPO.search(ctx.text))
    # With LoRA the reference is the base model with the adapters switched off: no second copy to hold.
    parts = {"reference": 0 if lora else BF16_BYTES, "rollout_engine_weights": BF16_BYTES if rollout else 0, "critic": TRAINING_BYTES if ppo else 0}
    extra = {name: params * per / 1e9 for name, per in parts.items()}
    total_gb = sum(extra.values())
    config = rec["recommended"]["configuration"]
    gpus, free = config["gpus"], config["gpu_memory_gib"] - config["per_gpu_memory_gib"]
    per_gpu = total_gb * 1e9 / GIB / gpus
    ctx.record(
        "rl-memory",
        {"params": params, "bytes_per_param": parts, "gpus": gpus, "free_gib_per_gpu_in_plan": free},
        {**{f"{k}_gb": v for k, v in extra.items()}, "extra_gb": total_gb, "extra_gib_per_gpu": per_gpu, "fits_beside_plan": per_gpu <= free},
    )
    values = {
        "ref": num(extra["reference"]),
        "rollout": num(extra["rollout_engine_weights"]),
        "critic": num(extra["critic"]),
        "total": num(total_gb),
        "per_gpu": num(per_gpu),
        "free": num(free),
        "gpus": gpus,
        "gpu": config["gpu_name"],
    }
    key = "rl.rollout_ppo" if ppo else "rl.rollout" if rollout else "rl.preference"
    blocks = [ParagraphBlock(text=say(key + ("_lora" if lora else ""), ctx.lang, **values))]
    if total_gb > 0:
        fits = "rl.fits" if rollout else "rl.fits_preference"
        blocks.append(ParagraphBlock(text=say(fits if per_gpu <= free else "rl.tight", ctx.lang, **values)))
    if rollout:
        blocks.append(ParagraphBlock(text=say("rl.setup", ctx.lang)))
    at = 1 if draft.blocks and draft.blocks[0].type == "lead" else 0
    draft.blocks[at:at] = blocks

