"""Accounts of real people, without HTTP: sign-up with e-mail confirmation, password reset, offices and their
staff (invite, accept, role, remove), and leaving with one's data (export, deletion). Every step is one function in
the caller's transaction, writes its audit line and queues its e-mail in the outbox; the pages (`shared/web/`,
`shared/webapp/`) and the `athaus office create` command call them.

E-mail links carry a random token; only its SHA-256 is stored (`AccountToken`), each is used once (a conditional
update) and expires (sign-up 24 h, reset 1 h, invitation 7 days).
"""
