"""`discuss mcp`: the project as a Model Context Protocol server, for agents (see `server`)."""
