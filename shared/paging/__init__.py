"""Paging, in one room: the signed cursor and what it is bound to, keyset pages over an ordered table, the
walk over a fixed result of account data, and the German sentences of CURSOR_EXPIRED."""
