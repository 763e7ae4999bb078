"""The run of a discussion: preparing it, calling the panel through the gateway, and saving as it goes.

Above the store and the providers, below what people see: nothing here
prints, and every function returns values the CLI and the MCP server show.
"""
