"""What assembles the two servers: the one ASGI app, the `athaus` command, the docs build.

It stands above both server packages (and is the only code that imports both); nothing below imports it."""
