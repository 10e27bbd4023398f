"""Shared vocabulary for the fuzz question templates: catalog names as people write them, and small helpers."""

from __future__ import annotations

import random

GPUS = [
    "4090",
    "RTX 4090",
    "3090",
    "H100",
    "H100 80G",
    "A100",
    "A100 40G",
    "A100 80GB",
    "A800",
    "H800",
    "H20",
    "L40S",
    "L4",
    "T4",
    "A10",
    "V100",
    "H200",
    "B200",
    "MI300X",
    "910B",
    "4060 Ti 16G",
    "RTX A6000",
    "L20",
]
BIG_GPUS = ["H100", "A100", "A800", "H800", "H200", "B200", "MI300X", "910B", "H20"]
MODELS = [
    "Llama 2 7B",
    "Llama 2 13B",
    "Llama 2 70B",
    "Llama 3 8B",
    "Llama 3 70B",
    "Llama 3.1 8B",
    "Llama 3.1 70B",
    "Llama 3.1 405B",
    "Qwen2.5-7B",
    "Qwen2.5-14B",
    "Qwen2.5-32B",
    "Qwen2.5-72B",
    "Mistral 7B",
    "Mixtral 8x7B",
    "DeepSeek-V3",
    "Gemma 2 9B",
    "Gemma 2 27B",
    "Yi-34B",
    "Baichuan2-13B",
    "GLM-4-9B",
    "Qwen-14B",
]
SIZES = ["1.5B", "3B", "7B", "8B", "13B", "14B", "32B", "34B", "70B", "72B"]
PRECISIONS_EN = ["FP16", "BF16", "INT8", "INT4", "FP8"]
PRECISIONS_ZH = ["FP16", "BF16", "INT8", "INT4", "FP8", "8bit量化", "4bit量化"]
METHODS_EN = ["full fine-tuning", "LoRA", "QLoRA", "full-parameter finetune"]
METHODS_ZH = ["全参微调", "全量微调", "LoRA微调", "QLoRA", "LoRA"]

R = random.Random


def _tokens_en(r: R) -> str:
    return r.choice(["1T tokens", "500B tokens", "2 trillion tokens", "200B tokens", "100 billion tokens", "50B tokens"])


def _tokens_zh(r: R) -> str:
    return r.choice(["1T tokens", "5000亿token", "2万亿token", "2000亿 tokens", "1000亿token", "500B tokens"])


def _days_en(r: R) -> str:
    return r.choice(["2 weeks", "10 days", "a month", "30 days", "3 weeks", "7 days"])


def _days_zh(r: R) -> str:
    return r.choice(["两周", "10天", "一个月", "30天", "3周", "7天"])


def _model(r: R) -> str:
    return r.choice(MODELS + SIZES)


def _typo(r: R, text: str) -> str:
    """Sometimes drop spaces or lower-case: the way people type."""
    roll = r.random()
    if roll < 0.15:
        return text.lower()
    if roll < 0.25:
        return text.replace(" ", "", 1)
    return text
