"""Channels other than REST and the CLI: thin adapters that call the one pipeline through `runtime.advisor`.

A channel holds no answer policy and never parses the Markdown rendering of an answer:
it renders the typed blocks of `service.contract` in its own format.
"""
