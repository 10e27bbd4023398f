"""What an expert adds to single sizing questions (handlers/expert_sizing.py, media_archetypes.py, claim_checks_link.py):
GPU-hours named in prose, checkpoint storage, model states in GB, small pre-training on one card, single-user decode,
busbw and MFU claims, image-generation and speech sizing without "which model?", serving in China."""

from __future__ import annotations

import re

from service.assistant.claim_checks_link import claimed_busbw, claimed_mfu
from service.assistant.handlers.expert_sizing import KEEP
from service.assistant.handlers.media_archetypes import HOURS, IMAGES, _count, kind_of
from service.contract import ChatRequest

CJK_FREE_ENGLISH = re.compile(r"\b(?:the|and|with|per|is|are)\b")


def ask(advisor, message: str):
    answer = advisor.answer(ChatRequest(message=message))
    assert answer.grounding.ungrounded == [], answer.grounding.ungrounded
    assert answer.clarification is None, answer.answer
    return answer


def tool(answer, name: str):
    return next(c for c in answer.tool_calls if c.tool == name)


def prose(answer) -> str:
    return " ".join(b.text for b in answer.blocks if b.type in ("lead", "paragraph"))


def test_readers() -> None:
    assert KEEP.search("and we retain the last 4 checkpoints").group(1) == "4"
    assert KEEP.search("滚动保留 6 份").group(1) == "6"
    assert KEEP.search("一个 30B 模型的检查点") is None
    assert claimed_busbw("实测 all-reduce 总线带宽 850 GB/s") == 850
    assert claimed_busbw("the NIC is 400 Gb/s") is None
    assert claimed_mfu("they quote 75% MFU") == 0.75
    assert claimed_mfu("MFU 能到 70%") == 0.7
    assert claimed_mfu("GPU utilisation 90%") is None
    assert kind_of("ComfyUI 出图服务") == "image_gen" and kind_of("transcribe call-centre recordings") == "speech"
    assert kind_of("fine-tune Qwen 7B") is None
    assert _count(IMAGES, "大概 3万张图") == 30_000 and _count(HOURS, "2,000 hours of audio per month") == 2000 / 30


def test_gpu_hours_are_named_in_prose_in_both_languages(advisor) -> None:
    zh = ask(advisor, "用 H100 训练 3B 模型、数据 6000 亿 token，需要多少卡时？")
    assert "GPU小时" in zh.blocks[0].text and "卡时" in zh.blocks[0].text
    hours = tool(zh, "training-time").output["gpu_hours"]["typical"]
    assert hours > 0
    en = ask(advisor, "Rough GPU hour count for a 30B model trained on 800B tokens using A100 80GB?")
    assert "GPU-hours" in en.blocks[0].text


def test_a_checkpoint_answer_says_the_storage_to_provision(advisor) -> None:
    zh = ask(advisor, "34B 模型带 Adam 优化器状态的检查点多大？")
    storage = tool(zh, "checkpoint-storage").output
    size = tool(zh, "checkpoint").output["size_gb"]
    assert storage["storage_gb"] == 3 * size
    assert "存储" in prose(zh)
    en = ask(advisor, "Checkpoint size for a 30B model with optimizer state? We keep the last 5.")
    assert tool(en, "checkpoint-storage").output["storage_gb"] == 5 * tool(en, "checkpoint").output["size_gb"]
    assert "Storage to provision" in prose(en)


def test_a_full_fine_tuning_fit_states_the_model_states_total_and_per_gpu(advisor) -> None:
    answer = ask(advisor, "Is 8 x A100 40GB enough for full-parameter fine-tuning of a 13B model?")
    text = prose(answer)
    conversion = next(c for c in answer.tool_calls if c.tool == "unit-conversion" and "model_states_gb" in c.output)
    assert round(conversion.output["model_states_gb"]) == 208  # 13e9 × 16 bytes
    assert "208 GB" in text and "16 bytes per parameter" in text and "per GPU over 8 GPUs" in text


def test_pretraining_a_small_model_on_one_card_gives_time_in_days_and_the_fit(advisor) -> None:
    for question, word in (
        ("一张 RTX 4090 从零预训练 1.5B 参数的模型大概要几天？", "天"),
        ("How long to pretrain a 1B LLM from scratch on one RTX 4090?", "days"),
    ):
        answer = ask(advisor, question)
        data = tool(answer, "compute-optimal-data")
        assert data.output["tokens"] == 20 * data.input["params"]
        assert word in answer.blocks[0].text and "20" in answer.blocks[0].text
        assert tool(answer, "training-time").input["gpu"] == "rtx-4090"
        assert any(c.tool == "training-memory" for c in answer.tool_calls)


def test_single_user_decode_is_bandwidth_bound_with_the_tp_aggregate(advisor) -> None:
    answer = ask(advisor, "Llama 3 70B 放在 8 张 H100 上，一个用户的生成速度有多少 token/s？")
    ceiling = tool(answer, "decode-ceiling")
    assert ceiling.input["gpus"] == 8
    assert ceiling.output["aggregate_bandwidth_gbps"] == 8 * ceiling.input["memory_bandwidth_gbps"]
    text = prose(answer)
    assert "显存带宽" in text and "张量并行" in text
    en = ask(advisor, "Single-user tokens per second for a 70B model across 4x A100 80GB?")
    assert "memory-bandwidth bound" in prose(en) and "tensor parallelism" in prose(en)


def test_a_busbw_claim_above_nvlink_is_not_credible(advisor) -> None:
    answer = ask(advisor, "The vendor claims their 8-GPU H100 server hits 880 GB/s all-reduce busbw. Believable?")
    check = tool(answer, "claim-check").output
    assert check["verdict"] == "not_credible" and check["link_gbps_per_direction"] == 450
    assert any(c.tool == "nccl-expected" for c in answer.tool_calls)
    assert "per direction" in answer.blocks[0].text


def test_an_mfu_claim_of_eighty_percent_is_unrealistic_with_sources(advisor) -> None:
    zh = ask(advisor, "有厂商说他们 H100 集群训练大模型 MFU 稳定在 85%，这个数靠谱吗？")
    assert tool(zh, "claim-check").output["verdict"] == "not_credible"
    assert "偏高" in zh.blocks[0].text and "arxiv.org" in zh.answer
    en = ask(advisor, "Our vendor quotes 78% MFU for LLM pre-training. Credible?")
    assert "not realistic" in en.blocks[0].text and "Ask the vendor" in en.answer


def test_image_generation_and_speech_are_sized_without_asking_for_a_model(advisor) -> None:
    image = ask(advisor, "做一个文生图服务（SDXL），每天一万五千张左右，想省钱，用什么卡？")
    sizing = tool(image, "image-gen-sizing")
    assert sizing.input["images_per_day"] == 15_000
    assert "性价比" in image.blocks[0].text and "秒" in prose(image)
    speech = ask(advisor, "Which GPUs should we buy to transcribe 300 hours of recordings a day with Whisper, as cheaply as possible?")
    assert tool(speech, "speech-sizing").input["audio_hours_per_day"] == 300
    assert "real time" in prose(speech) and "faster-whisper" in speech.answer


def test_serving_in_china_uses_the_cards_sold_there(advisor) -> None:
    answer = ask(advisor, "在国内上线 Llama 3 70B 推理服务，GPU 怎么选？")
    used = {c.input["gpu"] for c in answer.tool_calls if c.tool == "inference"}
    assert "h20" in used and "h100-sxm" not in used
    assert "昇腾" in answer.answer
