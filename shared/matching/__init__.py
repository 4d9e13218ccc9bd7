"""Where a broker's stock meets a seeker's saved searches: listing events, the Treffer and proposals they make, and
the PostgreSQL notification that tells the other instances (`events`, `notify`)."""
