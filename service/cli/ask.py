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
    explain: Annotated[bool, typer.Option("--explain", help="First print how the question was understood: intent, runner-up, "
                                                             "scores, nearest exemplars and the rules that decided.")] = False,
) -> None:
    """Ask the advisor a question; numbers come from the sizing tools, facts from cited documents."""
    import sys

    from rich.console import Console
    from rich.text import Text

    from service.config import get_settings
    from service.contract import ChatRequest
    from service.runtime import Runtime

    request = _request(ChatRequest, question, conversation, language)
    runtime = Runtime(get_settings())
    try:
        runtime.open_index()
        answer = runtime.advisor.answer(request, channel="cli")
    finally:
        runtime.close()
    if explain:
        from service.understanding.explain import format_trace

        typer.echo(format_trace(answer.understanding))
    if as_json:
        typer.echo(answer.model_dump_json(indent=2))
        return
    follow_title = "你还可以问：" if answer.language == "zh" else "You could also ask:"
    if not sys.stdout.isatty():
        # Pipes and logs get plain text: no escape codes, tables aligned in spaces.
        from service.render import plain

        typer.echo(plain.render(answer.blocks, answer.language), nl=False)
        if answer.follow_up_questions:
            typer.echo("\n" + follow_title + "\n" + "\n".join(f"  - {q}" for q in answer.follow_up_questions))
        typer.echo(f"conversation: {answer.conversation_id}")
        return
    from service.render import terminal

    console = Console()
    console.print(terminal.render(answer.blocks, answer.language))
    if answer.follow_up_questions:
        console.print("[dim]" + follow_title + "[/]")
        for item in answer.follow_up_questions:
            console.print(Text(f"  • {item}", style="dim"))  # a question is text, not console markup
    console.print(f"[dim]conversation: {answer.conversation_id}[/]")


def _request(model, question: str, conversation: str | None, language: str | None):
    from pydantic import ValidationError

    from service.errors import InputError
    from service.i18n import problems_from_errors

    try:
        return model(message=question, conversation_id=conversation, language=language)
    except ValidationError as exc:
        raise InputError(problems_from_errors(exc.errors(), strip=())) from None
