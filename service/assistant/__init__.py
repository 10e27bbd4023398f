"""The answer pipeline: understand -> retrieve + call tools -> compose -> check grounding -> (optional LLM writer).

Channels (REST, SSE, CLI, Slack) call `Assistant.answer()` / `Assistant.stream()` and only translate.
"""
