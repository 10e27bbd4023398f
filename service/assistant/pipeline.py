"""The one answer pipeline every channel uses.

    understand (language, intent, slots; follow-ups reuse earlier slots)   -> meta event
      -> handler: retrieve + call sizing tools -> Draft of typed blocks    -> one tool_result event per call
      -> compose: blocks + work blocks + sources; Markdown rendering       -> citations, then block (+ delta) events
      -> check numeric grounding over the rendered blocks
      -> optional LLM rewrite, kept only if it is grounded too
      -> persist the turn                                                  -> done event

`answer()` runs it in the caller's thread; `stream()` runs it in a worker thread and hands
the events over as they happen (event_stream.py), so the first event reaches the client before the work is done.
Either way a turn computes only once it holds one of the process's slots (gate.py).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from service.analytics.recorder import Recorder
from service.analytics.records import TurnFacts, outcome_of
from service import budget
from service.assistant import followup
from service.budget import OverBudget
from service.assistant.changes import note_changes
from service.assistant.capabilities import answer_case
from service.assistant.compose.work import work_block
from service.assistant.grounding import check
from service.assistant.handlers import HANDLERS, answer_finding
from service.assistant.handlers.base import Cancelled, Context, Draft, Searcher
from service.assistant.handlers.knowledge import knowledge_instead_of_asking, knowledge_instead_of_repeating, lead_of
from service.assistant.event_stream import EventStream
from service.assistant.gate import TurnGate
from service.assistant.input_bounds import bound
from service.assistant.messages import say
from service.assistant.stage_timing import StageClock, TimedSearcher, fallback_code
from service.assistant.answer_memo import AnswerMemo, MemoEntry, for_turn
from service.assistant.store import Conversation, ConversationStore, new_id
from service.assistant.understand import detect_language
from service.understanding import Understander, default_understander
from service.assistant.writer import Writer
from service.catalog import Catalog
from service.contract import (
    Answer,
    Block,
    BlockEvent,
    Channel,
    ChatRequest,
    Citation,
    CitationsEvent,
    DeltaEvent,
    DoneEvent,
    Feedback,
    Grounding,
    LeadBlock,
    MetaEvent,
    SourceItem,
    SourcesBlock,
    StreamEvent,
    ToolResultEvent,
)
from service.errors import InputError, Problem
from service.observability import metrics
from service.render import markdown

log = logging.getLogger("advisor.assistant")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
WHITESPACE_RUN = re.compile(r"\s+")
# The case reader keeps lines and indentation (YAML needs them), with every run of blanks capped: its patterns work a line
# at a time, and a capped run bounds how far any of them can backtrack over blanks.
BLANK_RUN = re.compile(r"[ \t\u3000\xa0]{41,}")
BLANK_LINES = re.compile(r"\n(?:[ \t]*\n){2,}")
MAX_INDENT = 40
MAX_WORKS_SHOWN = 2
DELTA_CHARS = 160

Emit = Callable[[StreamEvent], None]


def cap_whitespace(text: str) -> str:
    """Lines and indentation kept, but no run of blanks longer than MAX_INDENT and no more than one empty line in a row."""
    return BLANK_LINES.sub("\n\n", BLANK_RUN.sub(" " * MAX_INDENT, text.replace("\r\n", "\n").replace("\r", "\n"))).strip()


def collapse_whitespace(text: str) -> str:
    """Each run of whitespace as one space, or one line break if it held one. Every reader downstream
    may then chain optional `\\s*` gaps freely: a gap can never hold more than one character, so no
    pattern backtracks over a long run of blanks (tests/assistant/test_input_patterns.py)."""
    return WHITESPACE_RUN.sub(lambda run: "\n" if "\n" in run.group() else " ", text).strip()


@dataclass
class Turn:
    """A validated request, resolved to its conversation before any work starts.

    `message` is the question as asked (whitespace collapsed): it is what is stored. `text` is what every reader
    sees: the message with its long runs bounded (input_bounds.py), the same for ordinary questions."""

    text: str
    message: str
    request: ChatRequest
    raw: str  # the message with its lines and indentation (control characters removed): the case reader's parsers need them
    conversation_id: str
    channel: Channel
    owner: str | None


class Assistant:
    def __init__(self, catalog: Catalog, index: Searcher, store: ConversationStore, *, writer: Writer | None = None,
                 max_message_chars: int = 4000, secrets: tuple[str, ...] = (), understander: Understander | None = None,
                 recorder: Recorder | None = None, memo_size: int = 0, turn_budget_s: float | None = None,
                 concurrency: int | None = None) -> None:
        self.catalog, self.index, self.store = catalog, index, store
        # First-turn answers by question (answer_memo.py); only without an LLM writer, whose prose is not a function of the question.
        self.memo = AnswerMemo(memo_size if writer is None else 0)
        # Operator analytics (service/analytics): one QuestionRecord per turn, answered or failed; None records nothing.
        self.recorder = recorder
        # Injected like the searcher and the store; the default reads data-file exemplars with the semantic router.
        self.understander: Understander = understander or default_understander(catalog)
        self.writer = writer
        self.max_message_chars = max_message_chars
        self.turn_budget_s = turn_budget_s  # CPU seconds per turn (budget.py); None: unlimited
        self.gate = TurnGate(concurrency) if concurrency else None  # turns computed at once (gate.py); None: all at once
        self._secrets = tuple(s for s in secrets if s and len(s) >= 4)

    # -- public ---------------------------------------------------------------
    def answer(self, request: ChatRequest, *, channel: Channel = "api", owner: str | None = None) -> Answer:
        return self._run(self._prepare(request, channel, owner), emit=None, cancelled=None)

    def stream(self, request: ChatRequest, *, channel: Channel = "api", owner: str | None = None) -> EventStream:
        """Typed events as the work happens. Bad input raises InputError here, before any event."""
        turn = self._prepare(request, channel, owner)
        return EventStream(self, turn)

    def feedback(self, item: Feedback, *, owner: str | None = None) -> str | None:
        if not self.store.message_exists(item.message_id, owner=owner):
            return None
        return self.store.add_feedback(item.message_id, item.rating, item.comment)

    def conversation(self, *, conversation_id: str | None = None, conversation_key: str | None = None,
                     owner: str | None = None) -> Conversation | None:
        if conversation_id is None and conversation_key is not None:
            conversation_id = self.store.find_key(conversation_key, owner=owner)
        return self.store.get(conversation_id, owner=owner) if conversation_id else None

    # -- steps ----------------------------------------------------------------
    def _prepare(self, request: ChatRequest, channel: Channel, owner: str | None) -> Turn:
        message = self._validate(request)
        # Every reader sees bounded text (input_bounds.py): the collapsed one, and the one with its lines for the case reader.
        return Turn(text=bound(message), message=message, raw=bound(cap_whitespace(CONTROL.sub(" ", request.message))), request=request,
                    conversation_id=self._conversation(request, owner), channel=channel, owner=owner)

    def forget(self, conversation_id: str) -> None:
        """A deleted conversation: clear any question text analytics kept of it."""
        if self.recorder is not None:
            self.recorder.forget(conversation_id)

    def _run(self, turn: Turn, *, emit: Emit | None, cancelled: threading.Event | None) -> Answer:
        facts = TurnFacts(channel=turn.channel, conversation_id=turn.conversation_id, text=turn.message)
        try:
            with self._slot(chars=len(turn.message)), budget.turn_budget(self.turn_budget_s):
                answer = self._answer(turn, facts, emit=emit, cancelled=cancelled)
        except Cancelled:
            raise  # the client left: nothing was answered, nothing to record
        except OverBudget as stop:
            return self._over_budget(turn, facts, stop, emit)
        except Exception:
            if self.recorder is not None:
                self.recorder.record(facts, outcome="error", tools=[])
            raise
        metrics.count_intent(answer.intent, turn.channel)
        if facts.confidence is not None:
            metrics.observe_retrieval_confidence(facts.confidence)
        if answer.llm_fallback_reason:
            metrics.count_llm_fallback(fallback_code(answer.llm_fallback_reason))
        if self.recorder is not None:
            self.recorder.record(facts, outcome=outcome_of(answer), tools=[call.tool for call in answer.tool_calls])
        return answer

    def _answer(self, turn: Turn, facts: TurnFacts, *, emit: Emit | None, cancelled: threading.Event | None) -> Answer:
        started = time.perf_counter()
        send = emit or (lambda event: None)
        clock = StageClock(facts.stages_ms)
        with clock.stage("understand"):
            state = self.store.slots(turn.conversation_id)
            memoisable = emit is None and not state and self.memo.size > 0
            entry = self.memo.get(turn.text, turn.request.language) if memoisable else None
            if entry is None:
                und = self.understander.understand(turn.text, language=turn.request.language, state=state, raw=turn.raw)
        if entry is not None:
            return self._replay(turn, facts, entry, clock, started)
        budget.check("understand")
        message_id = new_id("msg")
        facts.language, facts.intent, facts.message_id, facts.trace = und.language, und.intent, message_id, und.trace
        send(MetaEvent(conversation_id=turn.conversation_id, conversation_key=turn.request.conversation_key, message_id=message_id,
                       language=und.language, intent=und.intent))
        on_tool = (lambda call: send(ToolResultEvent(tool=call.tool, input=call.input, output=call.output))) if emit else None
        searcher = TimedSearcher(self.index, facts)
        ctx = Context(text=turn.text, understanding=und, catalog=self.catalog, index=searcher, on_tool=on_tool, cancelled=cancelled)
        handled = time.perf_counter()
        draft = knowledge_instead_of_repeating(ctx, self._handle(ctx), state)  # a follow-up gets a new answer, not the last one
        note_changes(ctx, draft, (state or {}).get("slots"))  # a follow-up that changed an input says which, before and after
        # The handler retrieves and calls tools; what is not retrieval is the tools and the handler's own reasoning.
        clock.add("retrieve", searcher.seconds)
        clock.add("tools", time.perf_counter() - handled - searcher.seconds - searcher.compose_seconds)
        budget.check("compose")
        with clock.stage("compose", plus=searcher.compose_seconds):
            answer = self._compose(turn, message_id, ctx, draft, clock=clock)
        send(CitationsEvent(citations=answer.citations))
        rewrite = self.writer is not None and und.intent not in ("out_of_scope", "smalltalk") and draft.clarification is None
        self._redact(answer)
        pieces = markdown.pieces(answer.blocks, answer.language)  # they concatenate to answer.answer
        for index, block in enumerate(answer.blocks):
            send(BlockEvent(index=index, block=block))
            if not rewrite:
                for piece in split_deltas(pieces[index]):
                    send(DeltaEvent(text=piece))
        if rewrite:
            with clock.stage("llm"), self._slot(released=True):
                answer = self._rewrite(answer, ctx, draft)
            self._redact(answer)
            for piece in split_deltas(answer.answer):
                send(DeltaEvent(text=piece))
        # A client that left never saw this answer: do not record it as given. (Not the budget: the work is done, and a
        # finished answer is not thrown away for what it cost.)
        if cancelled is not None and cancelled.is_set():
            raise Cancelled()
        answer.timings_ms = clock.answer_view()
        with clock.stage("persist"):
            stored, slots = answer.model_dump(mode="json"), followup.state(und, turn.text, state, lead_of(draft))
            self.store.save_turn(turn.conversation_id, turn.message, stored, slots, und.language, channel=turn.channel)
        if memoisable:
            self.memo.put(turn.text, turn.request.language, MemoEntry(answer=answer, stored=stored, slots=slots, language=und.language,
                                                                      intent=und.intent, trace=und.trace, top_score=facts.top_score))
        log.info("answered intent=%s lang=%s channel=%s tools=%d citations=%d writer=%s ms=%.1f", und.intent, und.language, turn.channel,
                 len(answer.tool_calls), len(answer.citations), answer.writer, (time.perf_counter() - started) * 1000)
        send(DoneEvent(answer=answer))
        return answer

    def _replay(self, turn: Turn, facts: TurnFacts, entry: MemoEntry, clock: StageClock, started: float) -> Answer:
        """A memoised first turn (answer_memo.py): the same answer under this turn's ids, persisted and recorded as usual."""
        message_id = new_id("msg")
        facts.language, facts.intent, facts.message_id, facts.trace, facts.top_score = (
            entry.language, entry.intent, message_id, entry.trace, entry.top_score)
        answer, stored = for_turn(entry, conversation_id=turn.conversation_id, conversation_key=turn.request.conversation_key,
                                  message_id=message_id)
        answer.timings_ms = clock.answer_view()
        with clock.stage("persist"):
            self.store.save_turn(turn.conversation_id, turn.message, {**stored, "timings_ms": answer.timings_ms}, entry.slots, entry.language,
                                 channel=turn.channel)
        log.info("answered intent=%s lang=%s channel=%s memo=1 ms=%.1f", entry.intent, entry.language, turn.channel,
                 (time.perf_counter() - started) * 1000)
        return answer

    def _slot(self, *, chars: int = 0, released: bool = False):
        """A computing slot for a turn of `chars` characters (or, released=True, none while it waits for the LLM)."""
        if self.gate is None:
            return contextlib.nullcontext()
        return self.gate.released() if released else self.gate.turn(chars)

    def _over_budget(self, turn: Turn, facts: TurnFacts, stop: OverBudget, emit: Emit | None) -> Answer:
        """The turn used up its CPU budget: a short notice in the user's language, counted and recorded, nothing stored
        (its conversation keeps the state it had before this question)."""
        lang = facts.language or turn.request.language or detect_language(turn.text)
        meta_sent = facts.message_id is not None
        message_id = facts.message_id or new_id("msg")
        intent = facts.intent or "out_of_scope"
        blocks: list[Block] = [LeadBlock(text=say("pipeline.over_budget", lang))]
        answer = Answer(conversation_id=turn.conversation_id, conversation_key=turn.request.conversation_key, message_id=message_id,
                        answer=markdown.render(blocks, lang), blocks=blocks, language=lang, intent=intent, grounding=Grounding(numbers_checked=0))
        budget.count(stop.stage)
        log.warning("turn over its CPU budget at %s: %.3f s (limit %.3g s) channel=%s", stop.stage, stop.spent_s, self.turn_budget_s, turn.channel)
        if emit is not None:
            if not meta_sent:
                emit(MetaEvent(conversation_id=turn.conversation_id, conversation_key=turn.request.conversation_key, message_id=message_id,
                               language=lang, intent=intent))
            emit(BlockEvent(index=0, block=blocks[0]))
            for piece in split_deltas(answer.answer):
                emit(DeltaEvent(text=piece))
            emit(DoneEvent(answer=answer))
        if self.recorder is not None:
            facts.language, facts.intent, facts.message_id = lang, intent, message_id
            self.recorder.record(facts, outcome="over_budget", tools=[])
        return answer

    def _validate(self, request: ChatRequest) -> str:
        text = collapse_whitespace(CONTROL.sub(" ", request.message))
        if not text:
            raise InputError([Problem("message", "is empty", "为空", allowed="a question in Chinese or English")])
        if len(text) > self.max_message_chars:
            raise InputError([Problem("message", f"is too long ({len(text)} characters; at most {self.max_message_chars})",
                                      f"太长（{len(text)} 个字符；最多 {self.max_message_chars} 个）", allowed=f"<= {self.max_message_chars} characters")])
        return text

    def _conversation(self, request: ChatRequest, owner: str | None) -> str:
        """The owner's conversation this request continues (by id or by the channel's key), or a new one."""
        conversation_id, key = request.conversation_id, request.conversation_key
        if conversation_id is not None and not self.store.exists(conversation_id, owner=owner):
            raise InputError([Problem("conversation_id", "is not a known conversation; omit it to start a new one",
                                      "不是已有的会话；不传该字段即可开始新会话")])
        if key is None:
            return conversation_id or self.store.create(owner=owner)
        bound = self.store.bind_key(key, owner=owner, conversation_id=conversation_id)
        if bound is None or (conversation_id is not None and bound != conversation_id):
            raise InputError([Problem("conversation_key", "does not name this conversation; send the key or the id, not both",
                                      "与该会话不对应；请只传 conversation_key 或 conversation_id 其中之一")])
        return bound

    def _handle(self, ctx: Context) -> Draft:
        if ctx.understanding.clarification is not None:
            # The reading was a close call: ask which one was meant rather than answer the wrong question.
            question = ctx.understanding.clarification
            return Draft(blocks=[LeadBlock(text=question.question)], clarification=question, show_sources=False, follow_ups=list(question.suggestions))
        try:
            # A case a capability answers (a pasted OOM, a serving engine's KV error, another error signature, a pasted job's
            # memory question) is answered from its facts; everything else by the intent's handler.
            draft = answer_case(ctx) or answer_finding(ctx)
            if draft is not None:
                return draft
            return knowledge_instead_of_asking(ctx, HANDLERS[self.understander.handler(ctx.understanding.intent)](ctx))
        except InputError as exc:
            # A workload the tools refuse (bf16 on a T4, QLoRA pre-training): say why, in the user's language.
            return Draft(blocks=[LeadBlock(text=say("pipeline.cannot_compute", ctx.lang, reason=exc.message(ctx.lang)))],
                         show_sources=False, follow_ups=[say("pipeline.follow_instead", ctx.lang)])

    def _compose(self, turn: Turn, message_id: str, ctx: Context, draft: Draft, *, clock: StageClock | None = None) -> Answer:
        lang = ctx.lang
        blocks: list[Block] = list(draft.blocks)
        for label, work in draft.works[:MAX_WORKS_SHOWN]:
            suffix = "" if label == draft.works[0][0] else f" — {label}"
            blocks.append(work_block(work, lang, tool=label, title_suffix=suffix))
        citations = [_citation(hit) for hit in draft.hits]
        if citations and draft.show_sources:
            blocks.append(SourcesBlock(title=say("pipeline.sources", lang), items=[
                SourceItem(n=i, citation_id=c.id, title=c.title, source=c.source, url=c.url) for i, c in enumerate(citations, 1)]))
        answer = Answer(
            conversation_id=turn.conversation_id, conversation_key=turn.request.conversation_key, message_id=message_id,
            answer=markdown.render(blocks, lang), blocks=blocks, language=lang, intent=ctx.understanding.intent, citations=citations,
            tool_calls=ctx.tool_calls, recommendation=draft.recommendation, follow_up_questions=draft.follow_ups, clarification=draft.clarification,
            grounding=Grounding(numbers_checked=0), slots=ctx.slots.stated(), understanding=ctx.understanding.trace,
        )
        # Grounding runs over the blocks as rendered: every figure a reader sees is checked.
        budget.check("grounding")
        grounding_started = time.perf_counter()
        answer.grounding = self._ground(answer.answer, ctx, draft)
        if clock is not None:
            clock.add("grounding", time.perf_counter() - grounding_started, within="compose")
        if answer.grounding.ungrounded:
            log.warning("deterministic answer has ungrounded numbers: %s", answer.grounding.ungrounded[:5])
        return answer

    def _ground(self, text: str, ctx: Context, draft: Draft) -> Grounding:
        cited = [f"{h.title} {h.heading} {h.source} {h.text}" for h in draft.hits]
        # The calls' own dicts: a model_dump would only copy them (their values are already plain data).
        checked, ungrounded = check(text, self.catalog, [{"input": c.input, "output": c.output} for c in ctx.tool_calls], cited)
        return Grounding(numbers_checked=checked, ungrounded=ungrounded)

    def _rewrite(self, answer: Answer, ctx: Context, draft: Draft) -> Answer:
        """The LLM rewrites `answer` (the prose); `blocks` stay the deterministic structure."""
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

    def _redact(self, answer: Answer) -> None:
        """Secrets never leave in an answer, in its text or in its blocks."""
        for secret in self._secrets:
            answer.answer = answer.answer.replace(secret, "[redacted]")
        if not self._secrets:
            return
        dumped = json.dumps([b.model_dump(mode="json") for b in answer.blocks], ensure_ascii=False)
        if any(secret in dumped for secret in self._secrets):
            for secret in self._secrets:
                dumped = dumped.replace(json.dumps(secret)[1:-1], "[redacted]")
            answer.blocks = Answer.model_validate({**answer.model_dump(mode="json"), "blocks": json.loads(dumped)}).blocks


def _citation(hit) -> Citation:
    return Citation(id=hit.id, title=f"{hit.title} — {hit.heading}" if hit.heading else hit.title, source=hit.source, url=hit.url, snippet=hit.snippet)


CODE_SPAN = re.compile(r"`[^`\n]*`")
CODE_FENCE_BLOCK = re.compile(r"```.*?```", re.S)
CITATION_MARKER = re.compile(r"\[(\d+)\]")


def _markers_valid(text: str, count: int) -> bool:
    prose = CODE_SPAN.sub(" ", CODE_FENCE_BLOCK.sub(" ", text))
    return all(1 <= int(m) <= count for m in CITATION_MARKER.findall(prose))


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
