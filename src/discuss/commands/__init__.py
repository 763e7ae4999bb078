"""The application layer: what each command does, as functions returning values.

The CLI (typer) and the MCP server both call these, so a command's logic
lives in one place; they only parse their inputs and present the results.
"""
