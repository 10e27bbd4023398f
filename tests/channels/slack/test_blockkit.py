"""The Block Kit renderer: a pure function of the blocks and the language, inside Slack's limits."""

from __future__ import annotations

import json

from service.channels.slack import limits
from service.channels.slack.blockkit import FEEDBACK_DOWN, FEEDBACK_UP, SHARE, render_answer
from service.channels.slack.fake import block_kit_problem
from service.channels.slack.mrkdwn import to_mrkdwn, to_plain, truncate
from service.contract import (
    Band,
    BulletsBlock,
    ChecklistBlock,
    ChecklistStep,
    LeadBlock,
    NoticeBlock,
    ParagraphBlock,
    Recommendation,
    RecommendationBlock,
    RecommendedOption,
    SourceItem,
    SourcesBlock,
    TableBlock,
    TableCell,
    TableColumn,
    WorkBlock,
    WorkFormula,
    WorkInput,
)


def texts(blocks: list[dict]) -> str:
    """Every piece of text Slack would show, joined."""
    out = []
    for block in blocks:
        if "text" in block:
            out.append(block["text"]["text"])
        out += [f["text"] for f in block.get("fields", [])]
        out += [e["text"] if isinstance(e.get("text"), str) else e["text"]["text"] for e in block.get("elements", [])]
    return "\n".join(out)


def sources(n: int = 2) -> SourcesBlock:
    items = [
        SourceItem(n=i, citation_id=f"c{i}", title=f"Doc {i}", source="docs", url=f"https://example.com/doc{i}") for i in range(1, n + 1)
    ]
    return SourcesBlock(title="Sources", items=items)


def recommendation() -> Recommendation:
    return Recommendation(
        tier="mid", tier_name="Mid-scale training", task="fine-tune", method="full", model="qwen-14b", model_name="Qwen-14B",
        gpu="h100-sxm", gpu_name="H100 SXM", gpus=8, nodes=1, gpus_per_node=8, instance="p5.48xlarge", per_gpu_memory_gib=61.5,
        gpu_memory_gib=80, precision="bf16", sharding="ZeRO-3", hours=Band(low=15.2, typical=20.3, high=30.4),
        cost=Band(low=1500, typical=2000, high=3000), currency="USD", deployment="cloud", deployment_reason="short burst",
        cpu="2 × 48-core", ram_gb_per_node=2048, storage="30 TB NVMe", network="3,200 Gbps EFA",
        alternatives=[RecommendedOption(label="cheapest", label_text="Cheapest", tier="mid", gpu="a100-80gb", gpu_name="A100 80GB",
                                        gpus=8, nodes=1, gpus_per_node=8, hours=Band(low=40, typical=50, high=70))],
    )  # fmt: skip


def test_inline_markup_becomes_mrkdwn():
    text = "**8 × H100** for `zero3`, see [the guide](https://example.com/a?b=1) [2]"
    assert to_mrkdwn(text) == "*8 × H100* for `zero3`, see <https://example.com/a?b=1|the guide> [2]"
    assert to_plain(text) == "8 × H100 for zero3, see the guide (https://example.com/a?b=1) [2]"


def test_nothing_in_an_answer_can_ping_or_inject_a_link():
    hostile = "Hi <!channel> and <!here> and <@U123> & <https://evil.example|click>"
    out = to_mrkdwn(hostile)
    assert "<!" not in out and "<@" not in out and "<https://evil" not in out
    assert out.startswith("Hi &lt;!channel&gt;") and "&amp;" in out
    message = render_answer([LeadBlock(text=hostile), sources()], "en")
    assert "<!channel>" not in json.dumps(message.blocks) and "<!channel>" not in message.text
    assert "<@U123>" not in json.dumps(message.blocks)


def test_a_link_label_cannot_break_out_of_its_link():
    assert to_mrkdwn("[a|b>c](https://example.com/x|y)") == "<https://example.com/x%7Cy|a/b&gt;c>"


def test_truncation_never_leaves_half_an_escape_or_link():
    assert truncate("abc &amp; def", 9).endswith("…") and "&am" not in truncate("abc &amp; def", 9)
    assert "<" not in truncate("see <https://example.com|here> now", 20)


def test_each_block_type_renders_and_sources_come_last_with_buttons():
    blocks = [
        LeadBlock(text="Use **8 × H100** [1]."),
        ParagraphBlock(title="Why", text="Memory is the limit [2]."),
        BulletsBlock(items=["one", "two"], ordered=True),
        TableBlock(title="Sizing", columns=[TableColumn(key="k", label="Item"), TableColumn(key="v", label="Value", unit="GiB")],
                   rows=[[TableCell(text="weights"), TableCell(text="28", value=28)],
                         [TableCell(text="optimizer"), TableCell(text="112", value=112)]]),
        ChecklistBlock(title="Checks", steps=[ChecklistStep(text="Run nccl-tests", detail="Expect about 360 GB/s.",
                                                           commands=["all_reduce_perf -b 8 -e 8G"])]),
        RecommendationBlock(recommendation=recommendation()),
        WorkBlock(title="How training time was computed", tool="training-time",
                  inputs=[WorkInput(name="tokens", value="1e9", provenance="user", provenance_text="you")],
                  formulas=[WorkFormula(name="flops", formula="6·N·D", value="8.4e19")]),
        NoticeBlock(kind="warning", text="Prices change."),
        sources(),
    ]  # fmt: skip
    message = render_answer(blocks, "en", message_id="msg_1")
    assert block_kit_problem(message.blocks) is None
    shown = texts(message.blocks)
    assert "*8 × H100* [1]" in shown and "*Why*" in shown and "1. one\n2. two" in shown
    assert "*Value (GiB)*" in shown and "112" in shown
    assert "*1.* Run nccl-tests" in shown and "```all_reduce_perf -b 8 -e 8G```" in shown
    assert "8 × H100 SXM" in shown and "61.5 GiB / 80 GiB" in shown
    assert "20.3 hours" in shown and "$2,000" in shown and "Cheapest" in shown
    assert "8.4e19" not in shown and "training-time" in shown  # the work is folded to one line
    assert ":warning: Prices change." in shown
    assert message.blocks[-2]["type"] == "context" and "<https://example.com/doc1|Doc 1>" in message.blocks[-2]["elements"][0]["text"]
    actions = message.blocks[-1]
    assert [e["action_id"] for e in actions["elements"]] == [FEEDBACK_UP, FEEDBACK_DOWN]
    assert {e["value"] for e in actions["elements"]} == {"msg_1"}
    assert message.text == "Use 8 × H100 [1]."


def test_a_two_column_table_is_label_value_fields_at_most_ten_per_section():
    rows = [[TableCell(text=f"row {i}"), TableCell(text=str(i))] for i in range(12)]
    table = TableBlock(columns=[TableColumn(key="a", label="A"), TableColumn(key="b", label="B")], rows=rows)
    message = render_answer([LeadBlock(text="x"), table], "en")
    field_blocks = [b for b in message.blocks if b.get("fields")]
    assert len(field_blocks) == 3 and all(len(b["fields"]) <= limits.MAX_FIELDS for b in field_blocks)
    assert [f["text"] for f in field_blocks[0]["fields"][:4]] == ["*A*", "*B*", "row 0", "0"]


def test_the_recommendation_is_fields_in_chinese_too():
    message = render_answer([LeadBlock(text="推荐中等规模训练型"), RecommendationBlock(recommendation=recommendation())], "zh")
    shown = texts(message.blocks)
    assert "20.3 小时" in shown and "备选方案" in shown
    assert any(b.get("fields") for b in message.blocks)


def test_the_share_button_appears_only_when_asked():
    assert SHARE not in json.dumps(render_answer([LeadBlock(text="x")], "en", message_id="m").blocks)
    shared = render_answer([LeadBlock(text="x")], "zh", message_id="m", share_value='{"k":"slack:T:C:cmd-U","m":"m"}')
    buttons = shared.blocks[-1]["elements"]
    assert buttons[0]["action_id"] == SHARE and buttons[0]["text"]["text"] == "分享到频道"


def test_a_very_long_answer_is_trimmed_inside_every_limit_with_a_see_more_link():
    paragraphs = [ParagraphBlock(title=f"Part {i}", text=("A long sentence about GPUs [1]. " * 200)) for i in range(40)]
    rows = [[TableCell(text=f"r{i}"), TableCell(text="v" * 1500)] for i in range(30)]
    table = TableBlock(columns=[TableColumn(key="a", label="A"), TableColumn(key="b", label="B")], rows=rows)
    message = render_answer(
        [LeadBlock(text="L" * 5000), *paragraphs, table, sources(40)],
        "en",
        message_id="m1",
        more_url="https://advisor.example.com/v1/conversations/conv_1",
    )
    assert block_kit_problem(message.blocks) is None
    assert len(message.blocks) <= limits.MAX_BLOCKS
    assert limits.size(message.blocks) <= limits.MAX_PAYLOAD_CHARS
    for block in message.blocks:
        assert len(block.get("text", {}).get("text", "")) <= limits.MAX_SECTION_TEXT
    shown = texts(message.blocks)
    assert "<https://advisor.example.com/v1/conversations/conv_1|See the full answer>" in shown
    assert message.blocks[-1]["type"] == "actions" and "Doc 1" in texts(message.blocks[-2:])  # sources and buttons survive
    assert len(message.text) <= limits.MAX_FALLBACK_TEXT


def test_an_answer_that_fits_is_not_trimmed():
    message = render_answer([LeadBlock(text="short"), sources()], "en", more_url="https://example.com/more")
    assert "See the full answer" not in texts(message.blocks)
