"""A log line quoted verbatim is the user's own incident, even when the question asks what it means: diagnostics says
what it means and what to run. Asking what an error code means without quoting a log stays knowledge. Questions written
for these tests."""

from __future__ import annotations

import pytest

CASES = [
    ("NCCL WARN NET/IB : Got completion from peer 10.1.2.3<4021> with error 12, opcode 1, len 0, vendor err 129 — meaning?", "diagnostics"),
    ("这行日志啥意思：NCCL WARN NET/IB : Got completion from peer 10.1.2.3 with error 5, vendor err 249", "diagnostics"),
    ("what does this mean? RuntimeError: CUDA error: an illegal memory access was encountered", "diagnostics"),
    ("Traceback (most recent call last): ... torch.OutOfMemoryError: CUDA out of memory 是什么意思", "diagnostics"),
    ("what does Xid 48 mean", "faq"),
    ("Xid 63 是什么意思", "faq"),
]


@pytest.mark.parametrize(("text", "intent"), CASES)
def test_quoted_log_line_routing(understander, text, intent):
    assert understander.understand(text).intent == intent
