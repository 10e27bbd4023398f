"""What the analytics report says in words, per language (the admin page's own labels live in its script)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "suggested_topic": "Suggested topic: {topic}",
        "suggested_intent_topic": "Suggested topic: more knowledge for questions read as “{intent}”",
        "text_off": "Question texts are not stored (ADVISOR_STORE_QUESTIONS is off): gaps are grouped by intent; turn "
        "ADVISOR_STORE_QUESTIONS on to see example questions and clusters.",
        "no_gaps": "No coverage gaps in this period.",
    },
    "zh": {
        "suggested_topic": "建议补充的知识主题：{topic}",
        "suggested_intent_topic": "建议补充的知识主题：被识别为“{intent}”的问题所需的知识",
        "text_off": "未保存问题原文（ADVISOR_STORE_QUESTIONS 未开启）：覆盖缺口按意图分组；开启 ADVISOR_STORE_QUESTIONS 后可看到示例问题和聚类。",
        "no_gaps": "此期间没有覆盖缺口。",
    },
}


def message(key: str, language: str, **values: str) -> str:
    return MESSAGES["zh" if language == "zh" else "en"][key].format(**values)
