"""Follow-ups: "what about H100 instead?", "如果预算只有一半呢？" reuse the conversation's earlier slots."""

from __future__ import annotations

import re
from typing import Any

from service.assistant.slots import Slots
from service.assistant.understand import Understanding, _ask

I = re.IGNORECASE
WORKLOAD_INTENTS = ("recommend", "sizing", "compare", "cloud_vs_onprem", "claim_check", "preflight")
FOLLOW = re.compile(r"呢[？?。.!！\s]*$|what about|how about|instead|换成|改成|改用|换用|如果|要是|假如|\bif (?:we|i|the|it)|and (?:with|for|if|on)|"
                    r"^\s*(?:and|also|then|so)\b|^\s*那|用.{0,12}的话|same (?:but|with)|\bwith \d+|\bon \d+", I)
RELATIVE = [
    ("budget", re.compile(r"(?:预算|budget|钱).{0,10}(?:一半|half|减半)|half (?:the|my|our) budget", I), 0.5),
    ("budget", re.compile(r"(?:预算|budget).{0,10}(?:翻倍|double|两倍|加倍)|double (?:the|my|our) budget", I), 2.0),
    ("gpus", re.compile(r"(?:卡|gpu|显卡).{0,8}(?:翻倍|double|加倍)|double the (?:gpus|cards)", I), 2.0),
    ("gpus", re.compile(r"(?:卡|gpu|显卡).{0,8}(?:一半|减半|half)|half the (?:gpus|cards)", I), 0.5),
    ("deadline_hours", re.compile(r"(?:时间|期限|deadline|工期).{0,8}(?:一半|减半|half)|half the time|twice as fast|快一倍", I), 0.5),
    ("deadline_hours", re.compile(r"(?:时间|期限|deadline).{0,8}(?:翻倍|double|加倍)|twice as long|double the time", I), 2.0),
]


def merge(text: str, und: Understanding, state: dict[str, Any]) -> Understanding:
    prev_slots: dict[str, Any] = state.get("slots") or {}
    prev_intent = state.get("intent")
    new = und.slots.stated()
    if not prev_slots or prev_intent not in WORKLOAD_INTENTS or und.intent in ("out_of_scope", "smalltalk", "diagnostics"):
        return und
    has_own_workload = bool(new.get("model") or new.get("params_b"))
    short = len(text) <= 120
    ask = _ask(text)
    follow = bool(FOLLOW.search(text)) and short
    supplies_missing = und.intent == "faq" and bool(new) and short
    asks_about_same = ask is not None and not has_own_workload and short
    if not (follow or supplies_missing or asks_about_same or _relative(text)):
        return und
    merged = {**prev_slots, **new}
    if has_own_workload and "params_b" in merged and new.get("model"):
        merged.pop("params_b")
    for key, pattern, factor in RELATIVE:
        if pattern.search(text) and merged.get(key):
            merged[key] = merged[key] * factor
            if key == "gpus":
                merged[key] = max(1, int(merged[key]))
    intent, new_ask = und.intent, und.ask
    if und.intent == "faq" or (follow and und.intent in ("recommend", "sizing") and prev_intent != und.intent and ask is None):
        intent, new_ask = prev_intent, state.get("ask")
    if asks_about_same and und.intent == "faq":
        intent, new_ask = "sizing", ask
    return und.model_copy(update={"intent": intent, "ask": new_ask, "slots": Slots.model_validate(merged)})


def _relative(text: str) -> bool:
    return any(pattern.search(text) for _, pattern, _ in RELATIVE)


def state(und: Understanding, previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the next turn can build on; chit-chat and out-of-scope turns keep the previous workload."""
    if und.intent in ("out_of_scope", "smalltalk") and previous:
        return previous
    return {"slots": und.slots.stated(), "intent": und.intent, "ask": und.ask}
