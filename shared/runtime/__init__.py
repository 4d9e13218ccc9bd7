"""The MCP adapter: contract tools → registered tools, with validation, envelope, text, errors, logging."""
