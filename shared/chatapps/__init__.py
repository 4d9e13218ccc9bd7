"""Apps a chat host shows beside the confirmation card (MCP Apps and the ChatGPT Apps SDK): the search results."""
