"""Demo listings, drawn one after another from one random stream: shapes and distributions (tables, shapes),
prices, energy certificates, German titles and descriptions (wording), all put together by the factory."""
