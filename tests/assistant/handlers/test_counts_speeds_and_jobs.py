"""Answers that compute what was asked (stop 19): the GPU count a model needs to be served, the training tokens/s per
GPU, an offline embedding job, a server's power, a rental bill at the user's rate with spot beside it, and the same
spec figure for a form-factor sibling in a follow-up."""

from __future__ import annotations

from service.assistant.answer import ChatRequest


def test_how_many_gpus_to_serve_is_a_count_per_weight_format(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="how many H100s do we need to serve Llama 3 405B?"))
    assert answer.intent == "sizing" and answer.clarification is None
    assert "takes 8 ×" in answer.answer and "FP8" in answer.answer  # 16-bit weights need two nodes, FP8 one
    assert "does NOT fit" not in answer.answer and answer.grounding.ungrounded == []


def test_training_tokens_per_second_is_not_the_decode_speed(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="what training throughput in tokens/s per GPU for llama 3 8b on an h100 in bf16?"))
    tools = [c.tool for c in answer.tool_calls]
    assert "training-time" in tools and "decode-ceiling" not in tools
    assert "MFU" in answer.answer and answer.grounding.ungrounded == []


def test_a_training_batch_of_one_is_not_a_single_user_decode(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="memory for qlora of qwen2.5 32b, seq 4096, batch 1?"))
    assert [c for c in answer.tool_calls if c.tool == "training-memory"]
    assert not [c for c in answer.tool_calls if c.tool == "decode-ceiling"]


def test_an_embedding_job_is_sized_by_compute_not_asked_for_a_model(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="给一千万条文本算向量，用 bge-large，租什么卡最省"))
    assert answer.clarification is None
    job = next(c for c in answer.tool_calls if c.tool == "embedding-job")
    assert job.input["documents"] == 10_000_000 and job.input["params"] == 335e6
    assert answer.language == "zh" and answer.grounding.ungrounded == []


def test_a_servers_power_is_the_gpus_times_the_datasheet_factor(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="how much power does an 8x H100 server draw?"))
    power = next(c for c in answer.tool_calls if c.tool == "server-power")
    assert round(power.output["server_kw"], 1) == 10.1 and "kW" in answer.answer
    assert answer.grounding.ungrounded == []  # the datasheet's 8 x 700 W comes from the catalog, recorded as input


def test_a_servers_card_count_may_sit_apart_from_the_card(advisor) -> None:
    # "one card's power? I want eight in a box": the server holds eight, not the one card the power was asked of.
    answer = advisor.answer(ChatRequest(message="RTX 4090 单卡功耗多少瓦？打算一台机器装 6 张"))
    power = next(c for c in answer.tool_calls if c.tool == "server-power")
    assert power.input["gpus"] == 6 and power.output["gpu_kw"] == 2.7
    assert answer.grounding.ungrounded == [] and "700 W" in answer.answer


def test_a_rental_at_the_users_rate_with_no_platform(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="renting 32 H100 for 2 months at $2.5/hr, what's the bill"))
    cost = next(c for c in answer.tool_calls if c.tool == "cost")
    assert cost.input["cloud_price_per_gpu_hour"] == 2.5 and cost.input["gpu_hours"] == 32 * 24 * 60
    assert "$115,200" in answer.answer


def test_spot_beside_on_demand_for_a_run(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="spot or on-demand for a 3 week run on 32 A100s?"))
    assert [c for c in answer.tool_calls if c.tool == "spot-saving"]
    assert "checkpoint" in answer.answer.lower() and answer.grounding.ungrounded == []


def test_the_pcie_sibling_in_a_follow_up_gets_the_same_figure(advisor) -> None:
    first = advisor.answer(ChatRequest(message="memory bandwidth of the H100 SXM?"))
    second = advisor.answer(ChatRequest(message="and the PCIe version?", conversation_id=first.conversation_id))
    assert "2,000 GB/s" in second.answer and "Gen5" not in second.answer


def test_a_checkpoint_size_follow_up_after_a_cadence_question(advisor) -> None:
    first = advisor.answer(ChatRequest(message="how often should we checkpoint a 13B pretraining run on 32 H100?"))
    second = advisor.answer(ChatRequest(message="how big is each checkpoint with optimizer state", conversation_id=first.conversation_id))
    assert [c for c in second.tool_calls if c.tool == "checkpoint"]


def test_a_cluster_of_a_stated_size_with_no_model_is_planned_not_asked_about(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="what's a good setup for a 32 gpu cluster for multi-node training experiments?"))
    assert answer.intent == "recommend" and answer.clarification is None
    tools = [c.tool for c in answer.tool_calls]
    assert "nccl-expected" in tools and tools.count("training-time") >= 3
    assert "rail-optimised" in answer.answer and "400 Gb/s" in answer.answer and answer.grounding.ungrounded == []


def test_a_purchase_for_a_range_of_model_sizes_covers_the_largest(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="about $250k to spend: we will fine-tune and serve 8B to 70B models in house, what should we buy?"))
    assert "A 70B model on the same" in answer.answer and "Serving a 70B model on the same" in answer.answer
    assert answer.grounding.ungrounded == []


def test_a_rag_service_with_a_request_rate_is_a_serving_plan(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="RAG service on qwen2.5 7b, 4k prompt tokens, 300 output tokens, 10 requests/s: how many GPUs?"))
    assert "prefill" in answer.answer and "fine-tuning" not in answer.answer


def test_an_optimizer_follow_up_reruns_the_memory_with_it(advisor) -> None:
    first = advisor.answer(ChatRequest(message="memory to full fine-tune llama 3 8b on one A100 80GB"))
    second = advisor.answer(ChatRequest(message="and with 8-bit adam?", conversation_id=first.conversation_id))
    before = next(c for c in first.tool_calls if c.tool == "training-memory").output["per_gpu"]["optimizer_gib"]
    after = next(c for c in second.tool_calls if c.tool == "training-memory")
    assert after.input["optimizer"] == "adamw-8bit" and after.output["per_gpu"]["optimizer_gib"] < before
    assert "8-bit Adam" in second.answer


def test_a_personal_card_for_running_models_gets_the_weights_by_format(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="best gpu to run 7b models locally for coding, budget around $1,800"))
    assert "GeForce" in answer.answer and "4-bit GGUF" in answer.answer
    assert [c for c in answer.tool_calls if c.tool == "inference"] and answer.grounding.ungrounded == []


def test_slurm_health_checks_lead_with_the_scheduler_answer(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="how do we health check every node's GPUs before slurm runs a job?"))
    assert answer.intent == "preflight" and "Prolog" in answer.answer


def test_the_6nd_rule_is_explained_from_the_knowledge(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="explain the 6ND rule to me"))
    assert answer.intent == "faq" and "6·N·D" in answer.answer.split("\n")[0]


def test_a_budget_given_after_asking_which_card_to_get_is_a_desktop_purchase(advisor) -> None:
    first = advisor.answer(ChatRequest(message="which gpu should i get?"))
    second = advisor.answer(ChatRequest(message="mostly QLoRA on 7B-14B models, budget about $2,500", conversation_id=first.conversation_id))
    assert "GeForce" in second.answer.split("\n")[0] and [c for c in second.tool_calls if c.tool == "purchase-options"]


def test_full_fine_tuning_that_does_not_fit_the_node_leads_with_the_model_states(advisor) -> None:
    first = advisor.answer(ChatRequest(message="can we LoRA fine-tune Llama 3 70B on one 8x H100 node?"))
    second = advisor.answer(ChatRequest(message="and full fine-tuning on that same node?", conversation_id=first.conversation_id))
    states = next(c for c in second.tool_calls if c.tool == "model-states-total")
    assert states.output["states_gb"] > 1000 and second.answer.startswith("**No: full fine-tuning does not fit")


def test_choosing_between_providers_for_a_burst_is_not_one_bill(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="aws vs lambda vs coreweave for a 10 day burst on 32 H100s?"))
    assert answer.intent == "cloud_vs_onprem" and not [c for c in answer.tool_calls if c.tool == "rental-hours"]


def test_a_shorter_context_in_a_follow_up_re_sizes_the_serving_plan(advisor) -> None:
    first = advisor.answer(ChatRequest(message="serving mistral 7b to 100 concurrent users with 8k context, does one H100 do it?"))
    second = advisor.answer(ChatRequest(message="turns out the context is more like 2k tokens, does that change things?",
                                        conversation_id=first.conversation_id))
    assert second.clarification is None
    kv = [c for c in second.tool_calls if c.tool == "inference"]
    assert kv and kv[0].input["context_len"] == 2048 and kv[0].input["concurrency"] == 100


def test_a_learner_asking_for_a_cheap_card_gets_one_not_a_question(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="想学学 CUDA、跑跑小模型，有便宜点的卡推荐吗，二手也行"))
    assert answer.clarification is None and "GeForce" in answer.answer


def test_a_university_hpc_centre_buying_gpus_gets_the_shared_cluster_plan(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="高校 HPC 中心准备采购一批 GPU，给各课题组用，推荐什么型号"))
    assert answer.clarification is None and answer.intent == "recommend"


def test_gradient_accumulation_equivalence_is_knowledge(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="用梯度累积凑大 batch，和直接开大 batch 等价吗"))
    assert answer.intent == "faq" and answer.clarification is None and "梯度累积" in answer.answer


def test_a_claim_with_room_to_spare_says_how_much_less_time_it_needs(advisor) -> None:
    first = advisor.answer(ChatRequest(message="our vendor says 64 H100s can train a 70B on 2T tokens in 10 days"))
    second = advisor.answer(ChatRequest(message="what if they meant fine-tuning on 2B tokens?", conversation_id=first.conversation_id))
    timing = next(c for c in second.tool_calls if c.tool == "training-time")
    assert timing.input["tokens"] == 2e9 and "less time than claimed" in second.answer
    assert second.grounding.ungrounded == []


def test_a_bare_fit_question_with_no_training_word_is_about_serving(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="will llama 3.1 405B fit on a single 8xH100 node"))
    assert "FP8" in answer.answer.split("\n")[0]


def test_an_assistant_for_a_team_with_a_named_model_is_served_not_fine_tuned(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="公司内部要上一个代码助手，用 Qwen2.5-14B，30个人用，配什么卡"))
    rec = answer.recommendation
    assert rec and rec["task"] == "inference" and "vLLM" in answer.answer


def test_tokens_a_second_in_chinese_is_the_decode_speed(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="Qwen2.5 32B int4 放一张4090上推理，一秒能出多少token"))
    assert [c for c in answer.tool_calls if c.tool == "decode-ceiling"] and "带宽" in answer.answer


def test_a_break_even_with_the_users_figures_is_not_a_rental_bill(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="8卡服务器20万美元，云上2美元/卡时，利用率到多少才回本"))
    tools = [c.tool for c in answer.tool_calls]
    assert "break-even" in tools and "rental-hours" not in tools
