"""After a scripted run of questions the knowledge base cannot answer, the /admin page shows them as coverage gaps
with example questions, the per-channel counts and the thumbs down; question texts stay inert text."""

from __future__ import annotations

import httpx
import pytest

from service.contract import ChatRequest
from tests.admin.conftest import ADMIN_KEY, API_KEY, ARTIFACTS, needs_chromium, new_page

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_chromium]

# Near the domain but not in the knowledge base: a fictional vendor's accelerator and datacenter liquid cooling.
UNANSWERABLE = [
    "How do I enable the tensor fusion mode on the Zephyrion ZX-9 accelerator?",
    "Which driver version does the Zephyrion ZX-9 accelerator need on Ubuntu 22.04?",
    "Can the Zephyrion ZX-9 accelerator run PyTorch without CUDA?",
    "Zephyrion ZX-9 加速卡的专有编译器怎么安装？",
    "Zephyrion ZX-9 加速卡支持哪些深度学习框架？",
    "How do I update the Zephyrion ZX-9 board firmware?",
    "How should we size the immersion cooling tanks for a two-phase dielectric fluid?",
    "What coolant flow rate does a rear-door heat exchanger need per rack?",
    "液冷机柜的冷却液多久需要更换一次？",
    "What immersion cooling fluid works best for dense GPU racks?",
    "浸没式液冷的冷却液应该怎么选？",
    "How often should the dielectric fluid in an immersion tank be filtered?",
]
XSS = "Does the Zephyrion ZX-9 accelerator <img src=x onerror=window.__x=1> support NCCL?"
XSS_COMMENT = "<script>window.__x=2</script><b onmouseover=window.__x=3>useless</b>"
ANSWERABLE = ["训练到一半断电了怎么办？", "What is ZeRO-3?", "How many H100 do I need to fully fine-tune Llama-3-8B within a day?"]
CLI_QUESTIONS = ["What is the memory bandwidth of the H100 SXM?", "What coolant does a Zephyrion ZX-9 rack need?"]


@pytest.fixture(scope="module")
def scripted(admin_app) -> dict:
    url, runtime = admin_app
    headers = {"X-API-Key": API_KEY}
    with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
        for question in [*UNANSWERABLE, *ANSWERABLE]:
            assert client.post("/v1/chat", json={"message": question}).status_code == 200
        xss = client.post("/v1/chat", json={"message": XSS}).json()
        assert client.post("/v1/feedback", json={"message_id": xss["message_id"], "rating": "down", "comment": XSS_COMMENT}).status_code == 201
    for question in CLI_QUESTIONS:  # the CLI's path: the same front door, another channel
        runtime.advisor.answer(ChatRequest(message=question), channel="cli")
    report = httpx.get(f"{url}/v1/admin/analytics?days=1", headers={"X-API-Key": ADMIN_KEY}, timeout=120).json()
    return report


def test_the_scripted_questions_really_are_coverage_gaps(scripted) -> None:
    examples_or_counted = sum(g["count"] for g in scripted["coverage_gaps"])
    # The unanswerable questions come out low-confidence, abstained or refused near the domain; the answerable ones do not.
    assert examples_or_counted >= 10, [(g["count"], g["examples"]) for g in scripted["coverage_gaps"]]
    shown = {e for g in scripted["coverage_gaps"] for e in g["examples"]}
    assert not shown & set(ANSWERABLE)
    assert {c["key"]: c["count"] for c in scripted["channels"]} == {"api": len(UNANSWERABLE) + len(ANSWERABLE) + 1, "cli": len(CLI_QUESTIONS)}


def test_the_page_shows_gaps_with_examples_and_per_channel_counts(browser, admin_app, scripted) -> None:
    url, _ = admin_app
    context, page = new_page(browser, "en-US")
    try:
        page.goto(f"{url}/admin")
        page.locator("#admin-key").fill(ADMIN_KEY)
        page.locator("#load").click()
        page.wait_for_function("() => document.body.dataset.state === 'loaded'")

        gaps = page.locator("#gaps .gap")
        assert gaps.count() >= 2
        examples = page.locator("#gaps .example").all_text_contents()
        assert any("Zephyrion" in e for e in examples), examples
        assert any(word in e for e in examples for word in ("immersion", "coolant", "液冷", "dielectric")), examples
        assert all(s.startswith("Suggested topic: ") for s in page.locator("#gaps .suggestion").all_text_contents())
        api_row = page.locator("#channels tr[data-key=api] td").all_text_contents()
        cli_row = page.locator("#channels tr[data-key=cli] td").all_text_contents()
        assert api_row[1] == str(len(UNANSWERABLE) + len(ANSWERABLE) + 1) and cli_row[1] == str(len(CLI_QUESTIONS))
        assert page.locator("#latency tr[data-key=retrieve]").count() == 1
        assert page.locator("#per-day .column").count() == 31  # every day of the 30-day window, today included
        assert page.locator("#per-day tbody tr").count() == 1  # and a row for the one day that had questions
        # User input is text: the XSS question and comment are shown literally and never run.
        assert XSS in examples
        assert XSS_COMMENT in page.locator("#thumbs-down td").all_text_contents()
        assert page.evaluate("() => window.__x") is None
        assert page.locator("#report img, #report script, #report b").count() == 0
        assert page.watch.dialogs == [] and page.watch.errors == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "admin.png"), full_page=True)
        # The key stays for the tab (sessionStorage): a reload shows the figures again without asking.
        page.reload()
        page.wait_for_function("() => document.body.dataset.state === 'loaded'")
    finally:
        context.close()


def test_a_wrong_key_is_refused_and_labels_follow_the_browser_language(browser, admin_app) -> None:
    url, _ = admin_app
    context, page = new_page(browser, "zh-CN")
    try:
        page.goto(f"{url}/admin")
        assert page.locator("#h-gaps").text_content() == "覆盖缺口"
        page.locator("#admin-key").fill(API_KEY)  # an API key is not an admin key
        page.locator("#load").click()
        page.wait_for_function("() => document.body.dataset.state === 'error'")
        assert page.locator("#status").text_content() == "管理员密钥无效。"
        assert page.locator("#report").is_hidden()
    finally:
        context.close()
