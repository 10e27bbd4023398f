"""The one answer pipeline every channel uses.

    understand (language, intent, slots; follow-ups reuse earlier slots)
      -> handler: retrieve + call sizing tools -> Draft
      -> compose Markdown (answer, table, how computed, sources)
      -> check numeric grounding
      -> optional LLM rewrite, kept only if it is grounded too
      -> persist the turn
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from typing import Any

from service.assistant import followup
from service.assistant.answer import Answer, ChatRequest, Citation, Grounding
from service.assistant.compose.work import how_computed
from service.assistant.grounding import check
from service.assistant.handlers import HANDLERS
from service.assistant.handlers.base import Context, Draft, Searcher
from service.assistant.store import ConversationStore, new_id
from service.assistant.understand import understand
from service.assistant.writer import Writer
from service.catalog import Catalog
from service.errors import InputError, Problem

log = logging.getLogger("advisor.assistant")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MAX_WORKS_SHOWN = 2
DELTA_CHARS = 160


class Assistant:
    def __init__(self, catalog: Catalog, index: Searcher, store: ConversationStore, *, writer: Writer | None = None,
                 max_message_chars: int = 4000, secrets: tuple[str, ...] = ()) -> None:
        self.catalog, self.index, self.store = catalog, index, store
        self.writer = writer
        self.max_message_chars = max_message_chars
        self._secrets = tuple(s for s in secrets if s and len(s) >= 4)

    # -- public ---------------------------------------------------------------
    def answer(self, request: ChatRequest) -> Answer:
        started = time.perf_counter()
        text = self._validate(request)
        conversation_id = self._conversation(request.conversation_id)
        state = self.store.slots(conversation_id)
        und = understand(text, self.catalog, language=request.language)
        und = followup.merge(text, und, state)
        ctx = Context(text=text, understanding=und, catalog=self.catalog, index=self.index)
        draft = self._handle(ctx)
        answer = self._compose(conversation_id, ctx, draft)
        if self.writer is not None and und.intent not in ("out_of_scope", "smalltalk") and draft.clarification is None:
            answer = self._rewrite(answer, ctx, draft)
        answer.answer = self._redact(answer.answer)
        self.store.save_turn(conversation_id, text, answer.model_dump(mode="json"), followup.state(und, text, state), und.language)
        log.info("answered intent=%s lang=%s tools=%d citations=%d writer=%s ms=%.1f", und.intent, und.language,
                 len(answer.tool_calls), len(answer.citations), answer.writer, (time.perf_counter() - started) * 1000)
        return answer

    def stream(self, request: ChatRequest) -> Iterator[tuple[str, dict[str, Any]]]:
        """Server-sent event payloads: meta, citations (before any text), tool_result*, delta*, done."""
        answer = self.answer(request)
        yield "meta", {"conversation_id": answer.conversation_id, "message_id": answer.message_id, "language": answer.language,
                       "intent": answer.intent, "writer": answer.writer}
        yield "citations", {"citations": [c.model_dump() for c in answer.citations]}
        for call in answer.tool_calls:
            yield "tool_result", call.model_dump()
        for piece in split_deltas(answer.answer):
            yield "delta", {"text": piece}
        yield "done", answer.model_dump(mode="json")

    # -- steps ----------------------------------------------------------------
    def _validate(self, request: ChatRequest) -> str:
        text = CONTROL.sub(" ", request.message).strip()
        if not text:
            raise InputError([Problem("message", "is empty", "为空", allowed="a question in Chinese or English")])
        if len(text) > self.max_message_chars:
            raise InputError([Problem("message", f"is too long ({len(text)} characters; at most {self.max_message_chars})",
                                      f"太长（{len(text)} 个字符；最多 {self.max_message_chars} 个）", allowed=f"<= {self.max_message_chars} characters")])
        return text

    def _conversation(self, conversation_id: str | None) -> str:
        if conversation_id is None:
            return self.store.create()
        if not self.store.exists(conversation_id):
            raise InputError([Problem("conversation_id", "is not a known conversation; omit it to start a new one",
                                      "不是已有的会话；不传该字段即可开始新会话")])
        return conversation_id

    def _handle(self, ctx: Context) -> Draft:
        try:
            return HANDLERS[ctx.understanding.intent](ctx)
        except InputError as exc:
            # A workload the tools refuse (bf16 on a T4, QLoRA pre-training): say why, in the user's language.
            return Draft(body=ctx.t("I can't compute that as asked: ", "无法按这个条件计算：") + exc.message(ctx.lang) + "\n",
                         show_sources=False, follow_ups=[ctx.t("What configuration would you recommend instead?", "那应该用什么配置？")])

    def _compose(self, conversation_id: str, ctx: Context, draft: Draft) -> Answer:
        lang = ctx.lang
        parts = [draft.body.strip()]
        for label, work in draft.works[:MAX_WORKS_SHOWN]:
            suffix = "" if label == draft.works[0][0] else f" — {label}"
            parts.append(how_computed(work, lang, title_suffix=suffix))
        citations = [_citation(hit) for hit in draft.hits]
        if citations and draft.show_sources:
            lines = [ctx.t("**Sources**", "**来源**")]
            lines += [f"[{i}] {c.title} — {c.source} <{c.url}>" for i, c in enumerate(citations, 1)]
            parts.append("\n".join(lines))
        markdown = "\n\n".join(p for p in parts if p).strip() + "\n"
        answer = Answer(
            conversation_id=conversation_id, message_id=new_id("msg"), answer=markdown, language=lang, intent=ctx.understanding.intent,
            citations=citations, tool_calls=ctx.tool_calls, recommendation=draft.recommendation, follow_up_questions=draft.follow_ups,
            clarification=draft.clarification, grounding=Grounding(numbers_checked=0), slots=ctx.slots.stated(),
        )
        answer.grounding = self._ground(answer.answer, ctx, draft)
        if answer.grounding.ungrounded:
            log.warning("deterministic answer has ungrounded numbers: %s", answer.grounding.ungrounded[:5])
        return answer

    def _ground(self, text: str, ctx: Context, draft: Draft) -> Grounding:
        cited = [f"{h.title} {h.heading} {h.source} {h.text}" for h in draft.hits]
        checked, ungrounded = check(text, self.catalog, [c.model_dump() for c in ctx.tool_calls], cited)
        return Grounding(numbers_checked=checked, ungrounded=ungrounded)

    def _rewrite(self, answer: Answer, ctx: Context, draft: Draft) -> Answer:
        assert self.writer is not None
        try:
            text = self.writer.rewrite(answer.answer, language=answer.language)
        except Exception as exc:  # any writer failure falls back to the deterministic answer
            answer.llm_fallback_reason = f"llm error: {type(exc).__name__}"
            return answer
        grounding = self._ground(text, ctx, draft)
        if grounding.ungrounded:
            answer.llm_fallback_reason = f"llm answer had ungrounded numbers: {', '.join(grounding.ungrounded[:5])}"
            return answer
        if not _markers_valid(text, len(answer.citations)):
            answer.llm_fallback_reason = "llm answer cited sources that do not exist"
            return answer
        answer.answer, answer.grounding, answer.writer = text, grounding, "llm"
        return answer

    def _redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        return text


def _citation(hit) -> Citation:
    return Citation(id=hit.id, title=f"{hit.title} — {hit.heading}" if hit.heading else hit.title, source=hit.source, url=hit.url, snippet=hit.snippet)


def _markers_valid(text: str, count: int) -> bool:
    prose = re.sub(r"`[^`\n]*`", " ", re.sub(r"```.*?```", " ", text, flags=re.S))
    return all(1 <= int(m) <= count for m in re.findall(r"\[(\d+)\]", prose))


def split_deltas(text: str) -> list[str]:
    """Stream-sized pieces that concatenate back to exactly `text`, cut after line ends where possible."""
    pieces, current = [], ""
    for line in text.splitlines(keepends=True):
        current += line
        if len(current) >= DELTA_CHARS:
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces
