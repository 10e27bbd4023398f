"""Renderers: pure functions from typed answer blocks (service.contract) to one channel's output.

    markdown.render(blocks, language) -> str         Answer.answer, REST, text-only clients
    plain.render(blocks, language) -> str            CLI without a TTY, logs
    terminal.render(blocks, language) -> rich Group  CLI on a TTY

They import only the contract and each other; no renderer parses Markdown.
"""
