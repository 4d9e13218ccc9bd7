"""The web side of Athaus: the German sign-in and consent pages of the built-in authorization server."""
