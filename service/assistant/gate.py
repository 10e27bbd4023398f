"""At most a few turns compute at once in a process; the others wait their turn, in the order they came.

A turn is CPU-bound Python: in one process only one thread runs Python at a time (the GIL), so forty request threads
computing at once answer no faster than two, and each of them competes with the event loop for the GIL. The loop is
what answers /healthz and /readyz; with every thread busy on hostile messages a probe waited seconds for it. Through the
gate the loop competes with `slots` threads at most; the rest sleep on a condition and cost nothing.

Two lanes, by the message's length: short (an ordinary question, up to SHORT_CHARS) and long (a paste: a log, a table,
or 4,000 characters of junk; up to ten times the work). Long turns hold at most `slots - 1` slots, so with two or more
one slot is always free for short ones: under a flood of long hostile messages an ordinary question starts at once and
shares the CPU with one long turn, instead of waiting for one to end. Of those waiting, short ones go first, in arrival
order; a long one once no short one waits, or once it has waited MAX_DEFER_S (a flood of short ones does not starve
it). Under a flood of short messages an ordinary question waits its turn among them, as it would anyway: they are cheap.

The wait is not CPU, so the turn's CPU budget (service/budget.py) does not count it; a turn that waits for the LLM
(I/O) gives its slot back meanwhile (`released`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

SHORT_CHARS = 300  # an ordinary question is well under this; a pasted log or table is not
MAX_DEFER_S = 1.0

_holding: ContextVar[bool | None] = ContextVar("gate_lane", default=None)  # the lane of the slot this turn holds: long?


class TurnGate:
    def __init__(self, slots: int, clock=time.monotonic) -> None:
        self.slots = slots
        self.long_slots = max(1, slots - 1)
        self._clock = clock
        self._condition = threading.Condition()
        self._short: deque[tuple[float, object]] = deque()
        self._long: deque[tuple[float, object]] = deque()
        self._busy = 0
        self._busy_long = 0

    @property
    def busy(self) -> tuple[int, int]:
        """(slots held, of which by long turns)."""
        return self._busy, self._busy_long

    @property
    def waiting(self) -> tuple[int, int]:
        """(short turns waiting, long turns waiting)."""
        return len(self._short), len(self._long)

    @contextmanager
    def turn(self, chars: int = 0) -> Iterator[None]:
        """Hold one of the slots while the block runs (`chars`: the message's length, which picks its lane)."""
        long = chars > SHORT_CHARS
        ticket = (self._clock(), object())
        lane = self._long if long else self._short
        with self._condition:
            lane.append(ticket)
            try:
                while not self._may_enter(ticket, long):
                    self._condition.wait(timeout=MAX_DEFER_S)  # wakes to re-check a long turn's deferral too
            except BaseException:  # interrupted while waiting: leave the queue, or those behind would wait forever
                lane.remove(ticket)
                self._condition.notify_all()
                raise
            lane.popleft()
            self._take(long)
            self._condition.notify_all()  # the next in line may find a slot too
        token = _holding.set(long)
        try:
            yield
        finally:
            _holding.reset(token)
            self._leave(long)

    @contextmanager
    def released(self) -> Iterator[None]:
        """Give the slot back while the block waits on I/O; take one again after it, ahead of the queue (this turn's
        work is half done). Outside a turn's slot: nothing to give back."""
        long = _holding.get()
        if long is None:
            yield
            return
        self._leave(long)
        try:
            yield
        finally:
            with self._condition:
                while self._busy >= self.slots or (long and self._busy_long >= self.long_slots):
                    self._condition.wait()
                self._take(long)

    def _may_enter(self, ticket: tuple[float, object], long: bool) -> bool:
        if self._busy >= self.slots:
            return False
        if not long:  # first in its lane, and not ahead of a long one that has waited its deferral and may enter
            return self._short[0] is ticket and not (self._long and self._busy_long < self.long_slots
                                                     and self._clock() - self._long[0][0] >= MAX_DEFER_S)
        if self._long[0] is not ticket or self._busy_long >= self.long_slots:
            return False
        return not self._short or self._clock() - ticket[0] >= MAX_DEFER_S

    def _take(self, long: bool) -> None:
        self._busy += 1
        self._busy_long += long

    def _leave(self, long: bool) -> None:
        with self._condition:
            self._busy -= 1
            self._busy_long -= long
            self._condition.notify_all()
