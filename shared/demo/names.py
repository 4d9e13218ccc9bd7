"""Names the demo data gives people and streets: common German surnames and first names, street names."""

from __future__ import annotations

# The surnames in office names (in this order: the draw depends on it).
SURNAMES = (
    "Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann",
    "Koch", "Richter", "Klein", "Wolf", "Schröder", "Neumann", "Schwarz", "Braun", "Zimmermann", "Krüger",
    "Hartmann", "Lange", "Werner", "Krause", "Lehmann", "Köhler", "Maier", "Kaiser", "Fuchs", "Peters",
    "Scholz", "Vogel", "Brandt", "Haas", "Sommer", "Graf", "Berger", "Kühn", "Pohl", "Engel", "Lorenz", "Jung",
)
FEMALE_FIRST_NAMES = (
    "Anna", "Laura", "Julia", "Sarah", "Lisa", "Katharina", "Johanna", "Sophie", "Marie", "Lea", "Hannah", "Miriam",
    "Christina", "Sabine", "Claudia", "Petra", "Andrea", "Nicole", "Stefanie", "Melanie", "Franziska", "Carolin",
    "Jana", "Nina", "Elena", "Theresa", "Ines", "Birgit", "Susanne", "Monika", "Ayşe", "Natalia", "Emilia",
)
MALE_FIRST_NAMES = (
    "Lukas", "Jan", "Felix", "Maximilian", "Paul", "Leon", "David", "Tim", "Niklas", "Philipp", "Simon", "Florian",
    "Thomas", "Michael", "Andreas", "Stefan", "Christian", "Markus", "Matthias", "Daniel", "Sebastian", "Alexander",
    "Tobias", "Benjamin", "Jörg", "Frank", "Uwe", "Ralf", "Mehmet", "Piotr", "Konstantin", "Moritz", "Jonas",
)
_MORE_SURNAMES = (
    "Albrecht", "Arnold", "Bauer", "Beck", "Böhm", "Dietrich", "Ernst", "Frank", "Franke", "Friedrich", "Günther",
    "Hahn", "Heinrich", "Herrmann", "Horn", "Huber", "Jäger", "Keller", "König", "Kraus", "Kuhn", "Ludwig", "Martin",
    "Mayer", "Möller", "Nowak", "Otto", "Roth", "Schäfer", "Schmitt", "Schubert", "Schulte", "Schumacher", "Seidel",
    "Simon", "Stein", "Thomas", "Voigt", "Walter", "Winkler", "Wolff", "Yılmaz", "Ziegler", "Kowalski", "Petrović",
)
# Surnames of people: brokers, seekers and owners.
ALL_SURNAMES = tuple(sorted(set(SURNAMES) | set(_MORE_SURNAMES)))
STREETS = (
    "Hauptstraße", "Bahnhofstraße", "Goethestraße", "Schillerstraße", "Lindenstraße", "Gartenstraße",
    "Bergstraße", "Kirchstraße", "Mozartstraße", "Friedrichstraße", "Wilhelmstraße", "Rosenweg", "Birkenweg",
    "Am Stadtpark", "Parkstraße", "Ringstraße", "Uhlandstraße", "Lessingstraße", "Beethovenstraße",
    "Kastanienallee", "Lindenallee", "Feldstraße", "Wiesenweg", "Eichendorffstraße", "Blumenstraße",
    "Kantstraße", "Luisenstraße", "Schulstraße", "Mühlenweg", "Ahornweg", "Herderstraße",
    "Heinrich-Heine-Straße", "Fontanestraße", "Humboldtstraße", "Karlstraße", "Sonnenstraße", "Am Rosengarten",
)
