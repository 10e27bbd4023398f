"""Everything the Slack bot says on its own (not answer text), per language; and its HTTP refusal (401)."""

from __future__ import annotations

import re

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "apology": "Sorry, I could not answer that just now. Please try again in a moment.",
        "empty_question": (
            "Ask me about GPUs, sizing or training infrastructure, e.g. “How many H100s to pre-train Llama-3-70B on 15T tokens?”"
        ),
        "help": (
            "*GPU Deployment Advisor*\n"
            "• Mention me in a channel or send me a direct message: I answer in the thread, with sources.\n"
            "• `/advisor <question>` answers privately; *Share in channel* posts the answer for everyone.\n"
            "• Follow-ups in a thread keep the workload, e.g. “what if we used H100 instead?”\n"
            "• Sizing, tier recommendations, cloud vs on-prem, claim checks, NCCL diagnostics, pre-flight checklists."
        ),
        "share": "Share in channel",
        "shared_by": "Shared by <@{user}>",
        "share_gone": "That answer is no longer available to share.",
        "feedback_up": "👍 Helpful",
        "feedback_down": "👎 Not helpful",
        "feedback_thanks": "Thanks for the feedback.",
        "work": "🧮 How this was computed: {title} (`{tool}`); the inputs and formulas are in the conversation record",
        "trimmed": "This answer is longer than Slack allows; part of it is left out.",
        "see_more": "See the full answer",
        "unsigned": (
            "This request is not signed by Slack: it needs a current X-Slack-Request-Timestamp (seconds since 1970)"
            " and a valid X-Slack-Signature."
        ),
    },
    "zh": {
        "apology": "抱歉，暂时无法回答这个问题，请稍后再试。",
        "empty_question": "可以问我 GPU 选型、算力估算或训练基础设施的问题，例如“用 H100 预训练 Llama-3-70B（15T token）需要多少张卡？”",
        "help": (
            "*GPU 部署顾问*\n"
            "• 在频道里 @我 或私信我：我会在消息的话题中回答，并附上来源。\n"
            "• `/advisor <问题>` 只对你可见；点 *分享到频道* 可以发给所有人。\n"
            "• 在同一话题里追问会沿用之前的工作负载，例如“如果换成 H100 呢？”\n"
            "• 支持算力与显存估算、配置推荐、自建与上云对比、说法核查、NCCL 诊断和上线前检查清单。"
        ),
        "share": "分享到频道",
        "shared_by": "由 <@{user}> 分享",
        "share_gone": "这条回答已无法分享。",
        "feedback_up": "👍 有帮助",
        "feedback_down": "👎 没帮助",
        "feedback_thanks": "感谢反馈。",
        "work": "🧮 计算过程：{title}（`{tool}`）；输入与公式见会话记录",
        "trimmed": "回答超出 Slack 的长度限制，部分内容未显示。",
        "see_more": "查看完整回答",
        "unsigned": "该请求没有 Slack 的签名：需要当前的 X-Slack-Request-Timestamp（自 1970 年起的秒数）和有效的 X-Slack-Signature。",
    },
}

_CJK = re.compile(r"[\u3400-\u9fff]")


def text(language: str, key: str, **values: object) -> str:
    table = STRINGS["zh" if language == "zh" else "en"]
    return table[key].format(**values) if values else table[key]


def guess_language(message: str) -> str:
    """For the bot's own words before the pipeline has answered (help, apology): any Chinese character means zh."""
    return "zh" if _CJK.search(message or "") else "en"
