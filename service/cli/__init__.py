"""The `advisor` command line."""
