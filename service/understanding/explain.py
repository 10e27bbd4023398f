"""The understanding trace as plain text, for `advisor ask --explain`."""

from __future__ import annotations

from service.contract import UnderstandingTrace


def format_trace(trace: UnderstandingTrace | None) -> str:
    if trace is None:
        return "understanding: no trace recorded\n"
    lines = [f"understanding: {trace.intent}" + (f" (runner-up: {trace.runner_up})" if trace.runner_up else "")]
    if trace.scores:
        lines.append("  scores:     " + "  ".join(f"{name} {score:.3f}" for name, score in trace.scores.items()))
    if trace.neighbours:
        lines.append("  neighbours:")
        lines += [f"    {n.similarity:.3f}  {n.intent:<22} {n.exemplar}" for n in trace.neighbours]
    if trace.rules:
        lines.append("  rules:")
        lines += [f"    - {rule}" for rule in trace.rules]
    if trace.act or trace.subject:
        lines.append(f"  case:       act {trace.act or 'none'}; subject {trace.subject or 'none (the intent handler answers)'}"
                     + (f"; signatures {', '.join(trace.signatures)}" if trace.signatures else ""))
    if trace.facts:
        lines.append("  facts read (name = value  <- line: quote):")
        width = max(len(f"{f.name} = {f.value}") for f in trace.facts)
        lines += [f"    {f'{f.name} = {f.value}':<{width}}  <- {f.line}: {f.quote}" for f in trace.facts if f.name not in ("mention",)]
    return "\n".join(lines) + "\n"
