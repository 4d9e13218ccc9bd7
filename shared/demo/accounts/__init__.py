"""Demo accounts: brokers in every office, seekers with saved searches and Treffer, inquiries with their
threads, valuations, proposals, listing status history and waiting confirmations, so that every read tool
of both servers has something real to show.

`seeding.seed_accounts` runs at the end of `seed_demo`, inside the same transaction, on the listings just
written. It is deterministic like the catalog: its own `random.Random`, derived from the catalog seed (the
catalog's stream is never touched, so the catalog rows stay byte-identical), every query in a total order, and
all times relative to DEMO_NOW, never the clock. The parts draw from that one stream in a fixed order (people,
saved searches, inquiries, valuations, status history, confirmations), so a new draw goes after all existing
ones. Two columns differ between runs on purpose, because they must be secret: the salted password hashes and
the token hashes of pending actions (random tokens, discarded).

The logins in `logins.DEMO_ACCOUNTS` exist in every catalog size. Every other demo user signs in with the
password of their kind too (brokers BROKER_PASSWORD, seekers SEEKER_PASSWORD): this is demo data, never
production data.
"""
