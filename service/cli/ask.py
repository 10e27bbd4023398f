"""`advisor ask "..."`: the same answer as POST /v1/chat, on the terminal."""

from __future__ import annotations

from typing import Annotated

import typer

from service.cli.errors import exit_on_input_error


@exit_on_input_error
def ask_command(
    question: Annotated[str, typer.Argument(help="Your question, in Chinese or English.")],
    conversation: Annotated[str | None, typer.Option("--conversation", "-c", help="Continue this conversation id.")] = None,
    language: Annotated[str | None, typer.Option("--lang", help="Answer language: zh or en (default: the question's).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full answer object (same as the REST response).")] = False,
) -> None:
    """Ask the advisor a question; numbers come from the sizing tools, facts from cited documents."""
    from rich.console import Console
    from rich.markdown import Markdown

    from service.assistant.answer import ChatRequest
    from service.config import get_settings
    from service.runtime import Runtime

    request = _request(ChatRequest, question, conversation, language)
    runtime = Runtime(get_settings())
    try:
        runtime.open_index()
        answer = runtime.assistant.answer(request)
    finally:
        runtime.close()
    if as_json:
        typer.echo(answer.model_dump_json(indent=2))
        return
    console = Console()
    console.print(Markdown(answer.answer))
    if answer.follow_up_questions:
        console.print("[dim]" + ("你还可以问：" if answer.language == "zh" else "You could also ask:") + "[/]")
        for item in answer.follow_up_questions:
            console.print(f"[dim]  • {item}[/]")
    console.print(f"[dim]conversation: {answer.conversation_id}[/]")


def _request(model, question: str, conversation: str | None, language: str | None):
    from pydantic import ValidationError

    from service.errors import InputError
    from service.i18n import problems_from_errors

    try:
        return model(message=question, conversation_id=conversation, language=language)
    except ValidationError as exc:
        raise InputError(problems_from_errors(exc.errors(), strip=())) from None
