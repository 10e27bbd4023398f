"""What the handlers do with the evidence rules, through the real pipeline (real index, SQLite, tools):
an error signature gets the knowledge about it and never a question back, a provider or billing
question leads with knowledge, an acceptance test gets its own answer before the checklist with the
busbw from the tool, and off-topic or knowledge questions never ask for a model."""

from __future__ import annotations

import shutil

import pytest

from service.config import Settings
from service.contract import ChatRequest
from service.runtime import Runtime


@pytest.fixture(scope="module")
def advisor(tmp_path_factory, indexed_data_dir):
    data_dir = tmp_path_factory.mktemp("evidence-answers") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    rt = Runtime(Settings(data_dir=data_dir, environment="test", api_keys=[], llm_provider="none"))
    rt.open_index()
    yield rt.advisor
    rt.close()


def ask(advisor, message: str):
    answer = advisor.answer(ChatRequest(message=message))
    assert answer.grounding.ungrounded == [], (message, answer.grounding.ungrounded)
    return answer


def tools(answer) -> list[str]:
    return [call.tool for call in answer.tool_calls]


@pytest.mark.parametrize(
    ("message", "signature", "words"),
    [
        (
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 0 has a total capacity of 79.10 GiB",
            "cuda_oom",
            ("expandable_segments", "fragmentation"),
        ),
        ("rank 12 died: Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=600000)", "nccl_timeout", ("straggler", "rank")),
        ("kernel log on node 7 says NVRM: Xid (PCI:0000:c1:00): 79, GPU has fallen off the bus", "xid", ("Xid 79", "bus")),
        ("训练到一半突然挂了，报 CUDA error: an illegal memory access was encountered", "illegal_memory_access", ("CUDA_LAUNCH_BLOCKING",)),
    ],
)
def test_an_error_signature_is_named_and_answered_from_knowledge(advisor, message, signature, words):
    answer = ask(advisor, message)
    assert answer.intent == "diagnostics"
    assert answer.clarification is None  # a pasted OOM never gets "which model?"
    call = next(c for c in answer.tool_calls if c.tool == "diagnose")  # the most specific signature found leads the one diagnosis
    assert call.output["diagnosis"] == signature
    assert answer.citations, "the explanation cites the knowledge base"
    assert any(b.type == "checklist" for b in answer.blocks)
    assert any(w.lower() in answer.answer.lower() for w in words), answer.answer


def test_a_provider_question_leads_with_knowledge_and_no_break_even(advisor):
    answer = ask(advisor, "lambda or coreweave or plain aws for a six week finetuning sprint, which is the better deal?")
    assert answer.intent == "cloud_vs_onprem"
    assert "break-even" not in tools(answer)
    assert answer.citations and answer.blocks[0].type == "lead"
    assert "[1]" in answer.blocks[0].text  # the lead is a cited passage, not a computed verdict


def test_a_billing_question_with_a_bill_still_shows_the_break_even(advisor):
    answer = ask(advisor, "we pay about $60k a month for on-demand gpus on gcp, is reserved or owning better?")
    assert answer.intent == "cloud_vs_onprem"
    assert "break-even" in tools(answer)
    assert answer.citations


def test_an_acceptance_busbw_question_gets_the_tool_number_and_its_own_answer(advisor):
    answer = ask(advisor, "freshly racked 8x H100 server: what all_reduce_perf busbw should it pass before we sign off?")
    assert answer.intent == "preflight"
    assert "nccl-expected" in tools(answer)
    kinds = [b.type for b in answer.blocks]
    assert kinds[0] == "lead" and kinds[1] == "paragraph" and "checklist" in kinds[2:]
    assert answer.citations


@pytest.mark.parametrize(
    "message",
    [
        "RoCE or InfiniBand for a new 24-node training cluster?",
        "我们该用什么存储放训练数据",
        "how do I get TTFT down for long prompts on vllm",
        "训练集群的告警规则一般设哪些",
    ],
)
def test_knowledge_questions_never_ask_for_a_model(advisor, message):
    answer = ask(advisor, message)
    assert answer.intent == "faq"
    assert answer.clarification is None
    assert answer.citations


@pytest.mark.parametrize("message", ["is a 4070 super fine for 1440p gaming", "挖矿用3080还是3070划算"])
def test_near_domain_off_topic_gets_the_scope_notice(advisor, message):
    answer = ask(advisor, message)
    assert answer.intent == "out_of_scope"
    assert answer.recommendation is None and not answer.tool_calls
