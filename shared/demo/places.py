"""Real German places for the demo catalog: postal codes, centre coordinates, districts and price levels.

Price levels are rough 2025 market figures for existing apartments (purchase price and cold rent per m²);
the generator derives all other prices from them. Residents (rounded) weight how many listings a place gets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shared.demo.randomness import Weighted


@dataclass(frozen=True)
class DemoPlace:
    name: str
    state: str  # Bundesland
    postal_codes: tuple[str, ...]
    latitude: float
    longitude: float
    districts: tuple[str, ...]  # Stadtteile
    buy_per_sqm: int  # EUR/m², apartment purchase
    rent_per_sqm: float  # EUR/m², apartment cold rent per month
    residents: int
    area_code: str  # Telefonvorwahl


DEMO_PLACES: tuple[DemoPlace, ...] = (
    # Baden-Württemberg
    DemoPlace(
        "Stuttgart", "Baden-Württemberg", ("70173", "70178", "70182", "70190", "70372", "70469"), 48.7758, 9.1829,
        ("Stuttgart-West", "Stuttgart-Süd", "Bad Cannstatt", "Degerloch", "Feuerbach", "Vaihingen"),
        5400, 15.5, 633_000, "0711",
    ),
    DemoPlace(
        "Freiburg im Breisgau", "Baden-Württemberg", ("79098", "79102", "79104", "79106", "79117"), 47.9990, 7.8421,
        ("Altstadt", "Wiehre", "Herdern", "Stühlinger", "Vauban", "Littenweiler"),
        5900, 14.5, 237_000, "0761",
    ),
    DemoPlace(
        "Heidelberg", "Baden-Württemberg", ("69115", "69117", "69120", "69121", "69126"), 49.3988, 8.6724,
        ("Altstadt", "Neuenheim", "Handschuhsheim", "Weststadt", "Bergheim", "Rohrbach"),
        5300, 13.5, 160_000, "06221",
    ),
    DemoPlace(
        "Tübingen", "Baden-Württemberg", ("72070", "72072", "72074", "72076"), 48.5216, 9.0576,
        ("Altstadt", "Südstadt", "Weststadt", "Lustnau", "Derendingen", "Waldhäuser-Ost"),
        5200, 13.5, 93_000, "07071",
    ),
    DemoPlace(
        "Konstanz", "Baden-Württemberg", ("78462", "78464", "78465", "78467"), 47.6603, 9.1758,
        ("Altstadt", "Paradies", "Petershausen", "Allmannsdorf", "Wollmatingen", "Litzelstetten"),
        6000, 14.5, 86_000, "07531",
    ),
    # Bayern
    DemoPlace(
        "München", "Bayern", ("80331", "80469", "80796", "81369", "81675"), 48.1372, 11.5755,
        ("Schwabing", "Maxvorstadt", "Haidhausen", "Sendling", "Bogenhausen", "Giesing", "Neuhausen", "Pasing"),
        9000, 22.0, 1_512_000, "089",
    ),
    DemoPlace(
        "Nürnberg", "Bayern", ("90402", "90403", "90429", "90459", "90491"), 49.4521, 11.0767,
        ("Altstadt", "Gostenhof", "St. Johannis", "Südstadt", "Maxfeld", "Erlenstegen", "Wöhrd"),
        4100, 11.5, 526_000, "0911",
    ),
    DemoPlace(
        "Augsburg", "Bayern", ("86150", "86152", "86153", "86157", "86163", "86179"), 48.3705, 10.8978,
        ("Innenstadt", "Göggingen", "Pfersee", "Lechhausen", "Hochzoll", "Haunstetten"),
        4700, 12.5, 301_000, "0821",
    ),
    DemoPlace(
        "Regensburg", "Bayern", ("93047", "93049", "93051", "93053", "93059"), 49.0134, 12.1016,
        ("Altstadt", "Kumpfmühl", "Stadtamhof", "Westenviertel", "Ostenviertel", "Galgenberg"),
        5200, 12.5, 157_000, "0941",
    ),
    DemoPlace(
        "Würzburg", "Bayern", ("97070", "97072", "97074", "97080", "97082"), 49.7913, 9.9534,
        ("Altstadt", "Sanderau", "Frauenland", "Zellerau", "Grombühl", "Heidingsfeld"),
        4300, 11.5, 128_000, "0931",
    ),
    DemoPlace(
        "Bamberg", "Bayern", ("96047", "96049", "96050", "96052"), 49.8988, 10.9028,
        ("Inselstadt", "Bergstadt", "Gärtnerstadt", "Gaustadt", "Wunderburg"),
        3900, 10.0, 79_000, "0951",
    ),
    DemoPlace(
        "Passau", "Bayern", ("94032", "94034", "94036"), 48.5665, 13.4312,
        ("Altstadt", "Innstadt", "Hacklberg", "Grubweg", "Haidenhof"),
        3500, 9.5, 53_000, "0851",
    ),
    # Berlin
    DemoPlace(
        "Berlin", "Berlin", ("10115", "10117", "10405", "10969", "12043", "13353"), 52.5200, 13.4050,
        ("Mitte", "Prenzlauer Berg", "Kreuzberg", "Friedrichshain", "Neukölln", "Wedding", "Charlottenburg",
         "Schöneberg"),
        5500, 14.0, 3_755_000, "030",
    ),
    # Brandenburg
    DemoPlace(
        "Potsdam", "Brandenburg", ("14467", "14469", "14471", "14482"), 52.3906, 13.0645,
        ("Innenstadt", "Babelsberg", "Bornstedt", "Potsdam West", "Nauener Vorstadt", "Golm"),
        5000, 12.0, 185_000, "0331",
    ),
    DemoPlace(
        "Cottbus", "Brandenburg", ("03044", "03046", "03048", "03050"), 51.7563, 14.3329,
        ("Stadtmitte", "Sandow", "Spremberger Vorstadt", "Ströbitz", "Sachsendorf"),
        1900, 6.5, 98_000, "0355",
    ),
    DemoPlace(
        "Brandenburg an der Havel", "Brandenburg", ("14770", "14772", "14774", "14776"), 52.4125, 12.5316,
        ("Altstadt", "Neustadt", "Dominsel", "Görden", "Hohenstücken", "Plaue"),
        2200, 7.0, 73_000, "03381",
    ),
    DemoPlace(
        "Eberswalde", "Brandenburg", ("16225", "16227"), 52.8333, 13.8167,
        ("Stadtmitte", "Finow", "Westend", "Nordend", "Brandenburgisches Viertel"),
        2000, 7.0, 42_000, "03334",
    ),
    # Bremen
    DemoPlace(
        "Bremen", "Bremen", ("28195", "28199", "28203", "28209", "28211"), 53.0793, 8.8017,
        ("Schwachhausen", "Findorff", "Ostertor", "Neustadt", "Walle", "Horn-Lehe", "Vegesack"),
        2900, 10.0, 577_000, "0421",
    ),
    DemoPlace(
        "Bremerhaven", "Bremen", ("27568", "27570", "27574", "27576", "27580"), 53.5396, 8.5809,
        ("Mitte", "Geestemünde", "Lehe", "Leherheide", "Wulsdorf"),
        1400, 6.5, 118_000, "0471",
    ),
    # Hamburg
    DemoPlace(
        "Hamburg", "Hamburg", ("20095", "20249", "20257", "22301", "22765", "22767"), 53.5511, 9.9937,
        ("Altona", "Ottensen", "Eimsbüttel", "Winterhude", "Eppendorf", "Barmbek", "St. Georg", "Blankenese"),
        6200, 14.5, 1_892_000, "040",
    ),
    # Hessen
    DemoPlace(
        "Frankfurt am Main", "Hessen", ("60311", "60316", "60318", "60487", "60594"), 50.1109, 8.6821,
        ("Nordend", "Sachsenhausen", "Bockenheim", "Bornheim", "Westend", "Gallus", "Ostend"),
        6000, 16.0, 773_000, "069",
    ),
    DemoPlace(
        "Wiesbaden", "Hessen", ("65183", "65185", "65187", "65193", "65203"), 50.0782, 8.2398,
        ("Mitte", "Nordost", "Rheingauviertel", "Biebrich", "Sonnenberg", "Dotzheim"),
        4500, 12.5, 284_000, "0611",
    ),
    DemoPlace(
        "Kassel", "Hessen", ("34117", "34119", "34121", "34125", "34131"), 51.3127, 9.4797,
        ("Mitte", "Vorderer Westen", "Wehlheiden", "Bad Wilhelmshöhe", "Kirchditmold"),
        2600, 8.5, 204_000, "0561",
    ),
    DemoPlace(
        "Marburg", "Hessen", ("35037", "35039", "35041", "35043"), 50.8021, 8.7667,
        ("Oberstadt", "Südviertel", "Weidenhausen", "Ockershausen", "Marbach", "Cappel"),
        3300, 10.0, 77_000, "06421",
    ),
    # Mecklenburg-Vorpommern
    DemoPlace(
        "Rostock", "Mecklenburg-Vorpommern", ("18055", "18057", "18069", "18119", "18147"), 54.0924, 12.0991,
        ("Stadtmitte", "Kröpeliner-Tor-Vorstadt", "Warnemünde", "Gehlsdorf", "Reutershagen", "Südstadt"),
        3300, 9.0, 209_000, "0381",
    ),
    DemoPlace(
        "Schwerin", "Mecklenburg-Vorpommern", ("19053", "19055", "19057", "19063"), 53.6355, 11.4012,
        ("Altstadt", "Paulsstadt", "Schelfstadt", "Werdervorstadt", "Lankow", "Zippendorf"),
        2400, 7.5, 98_000, "0385",
    ),
    DemoPlace(
        "Stralsund", "Mecklenburg-Vorpommern", ("18435", "18437", "18439"), 54.3091, 13.0818,
        ("Altstadt", "Tribseer Vorstadt", "Knieper", "Frankenvorstadt", "Grünhufe"),
        2800, 8.0, 60_000, "03831",
    ),
    # Niedersachsen
    DemoPlace(
        "Hannover", "Niedersachsen", ("30159", "30161", "30163", "30169", "30173"), 52.3759, 9.7320,
        ("List", "Linden", "Südstadt", "Oststadt", "Nordstadt", "Kirchrode", "Herrenhausen"),
        3400, 10.5, 546_000, "0511",
    ),
    DemoPlace(
        "Oldenburg", "Niedersachsen", ("26121", "26122", "26123", "26129", "26133"), 53.1435, 8.2146,
        ("Innenstadt", "Bürgerfelde", "Donnerschwee", "Eversten", "Kreyenbrück", "Osternburg"),
        3400, 9.5, 171_000, "0441",
    ),
    DemoPlace(
        "Göttingen", "Niedersachsen", ("37073", "37075", "37077", "37079", "37081"), 51.5413, 9.9158,
        ("Innenstadt", "Ostviertel", "Weende", "Geismar", "Grone", "Nikolausberg"),
        3200, 10.5, 118_000, "0551",
    ),
    DemoPlace(
        "Lüneburg", "Niedersachsen", ("21335", "21337", "21339"), 53.2464, 10.4115,
        ("Altstadt", "Rotes Feld", "Kaltenmoor", "Oedeme", "Häcklingen"),
        3700, 10.5, 78_000, "04131",
    ),
    DemoPlace(
        "Goslar", "Niedersachsen", ("38640", "38642", "38644"), 51.9059, 10.4289,
        ("Altstadt", "Jürgenohl", "Oker", "Hahnenklee", "Sudmerberg"),
        1900, 7.0, 50_000, "05321",
    ),
    # Nordrhein-Westfalen
    DemoPlace(
        "Köln", "Nordrhein-Westfalen", ("50667", "50672", "50733", "50825", "50937", "51063"), 50.9375, 6.9603,
        ("Ehrenfeld", "Nippes", "Sülz", "Lindenthal", "Deutz", "Mülheim", "Südstadt", "Rodenkirchen"),
        4700, 13.0, 1_084_000, "0221",
    ),
    DemoPlace(
        "Düsseldorf", "Nordrhein-Westfalen", ("40210", "40211", "40225", "40477", "40545"), 51.2277, 6.7735,
        ("Oberkassel", "Pempelfort", "Bilk", "Flingern", "Derendorf", "Unterbilk", "Benrath"),
        4700, 13.0, 629_000, "0211",
    ),
    DemoPlace(
        "Dortmund", "Nordrhein-Westfalen", ("44135", "44137", "44139", "44147", "44263"), 51.5136, 7.4653,
        ("Kreuzviertel", "Hörde", "Nordstadt", "Hombruch", "Aplerbeck", "Innenstadt-Ost"),
        2700, 9.0, 595_000, "0231",
    ),
    DemoPlace(
        "Münster", "Nordrhein-Westfalen", ("48143", "48145", "48147", "48149", "48151"), 51.9607, 7.6261,
        ("Kreuzviertel", "Mauritz", "Hiltrup", "Gievenbeck", "Geist", "Südviertel"),
        4500, 12.5, 320_000, "0251",
    ),
    DemoPlace(
        "Aachen", "Nordrhein-Westfalen", ("52062", "52064", "52066", "52068", "52070"), 50.7753, 6.0839,
        ("Innenstadt", "Burtscheid", "Frankenberger Viertel", "Laurensberg", "Brand", "Haaren"),
        3200, 10.5, 252_000, "0241",
    ),
    DemoPlace(
        "Gelsenkirchen", "Nordrhein-Westfalen", ("45879", "45881", "45886", "45894"), 51.5177, 7.0857,
        ("Altstadt", "Buer", "Ückendorf", "Schalke", "Erle", "Horst"),
        1500, 7.0, 265_000, "0209",
    ),
    # Rheinland-Pfalz
    DemoPlace(
        "Mainz", "Rheinland-Pfalz", ("55116", "55118", "55122", "55124", "55131"), 49.9929, 8.2473,
        ("Altstadt", "Neustadt", "Oberstadt", "Gonsenheim", "Bretzenheim", "Hechtsheim"),
        4700, 13.0, 220_000, "06131",
    ),
    DemoPlace(
        "Trier", "Rheinland-Pfalz", ("54290", "54292", "54294", "54295", "54296"), 49.7499, 6.6371,
        ("Altstadt", "Trier-Süd", "Pfalzel", "Olewig", "Heiligkreuz", "Kürenz"),
        3300, 10.0, 112_000, "0651",
    ),
    DemoPlace(
        "Koblenz", "Rheinland-Pfalz", ("56068", "56070", "56072", "56073", "56075"), 50.3569, 7.5890,
        ("Altstadt", "Südliche Vorstadt", "Lützel", "Ehrenbreitstein", "Metternich", "Güls"),
        2900, 9.0, 115_000, "0261",
    ),
    # Saarland
    DemoPlace(
        "Saarbrücken", "Saarland", ("66111", "66113", "66117", "66119", "66123"), 49.2402, 6.9969,
        ("St. Johann", "Alt-Saarbrücken", "St. Arnual", "Malstatt", "Dudweiler", "Eschberg"),
        2300, 8.0, 181_000, "0681",
    ),
    DemoPlace(
        "Neunkirchen", "Saarland", ("66538", "66539", "66540"), 49.3448, 7.1799,
        ("Innenstadt", "Wiebelskirchen", "Wellesweiler", "Furpach", "Kohlhof", "Hangard"),
        1400, 6.2, 46_000, "06821",
    ),
    # Sachsen
    DemoPlace(
        "Leipzig", "Sachsen", ("04103", "04109", "04177", "04229", "04275"), 51.3397, 12.3731,
        ("Plagwitz", "Gohlis", "Südvorstadt", "Connewitz", "Lindenau", "Schleußig", "Reudnitz"),
        2800, 8.5, 616_000, "0341",
    ),
    DemoPlace(
        "Dresden", "Sachsen", ("01067", "01069", "01097", "01099", "01309"), 51.0504, 13.7373,
        ("Neustadt", "Striesen", "Blasewitz", "Löbtau", "Loschwitz", "Pieschen", "Johannstadt"),
        3000, 8.5, 564_000, "0351",
    ),
    DemoPlace(
        "Chemnitz", "Sachsen", ("09111", "09112", "09113", "09126", "09130"), 50.8278, 12.9214,
        ("Zentrum", "Kaßberg", "Sonnenberg", "Schloßchemnitz", "Bernsdorf", "Kappel"),
        1500, 6.0, 248_000, "0371",
    ),
    DemoPlace(
        "Plauen", "Sachsen", ("08523", "08525", "08527", "08529"), 50.4947, 12.1383,
        ("Bahnhofsvorstadt", "Haselbrunn", "Preißelpöhl", "Chrieschwitz", "Reusa"),
        1000, 5.3, 63_000, "03741",
    ),
    DemoPlace(
        "Görlitz", "Sachsen", ("02826", "02827", "02828"), 51.1528, 14.9873,
        ("Altstadt", "Innenstadt", "Rauschwalde", "Königshufen", "Weinhübel"),
        1300, 5.5, 56_000, "03581",
    ),
    # Sachsen-Anhalt
    DemoPlace(
        "Magdeburg", "Sachsen-Anhalt", ("39104", "39106", "39108", "39112", "39124"), 52.1205, 11.6276,
        ("Altstadt", "Stadtfeld", "Sudenburg", "Buckau", "Neue Neustadt", "Herrenkrug"),
        2000, 7.0, 240_000, "0391",
    ),
    DemoPlace(
        "Halle (Saale)", "Sachsen-Anhalt", ("06108", "06110", "06114", "06120"), 51.4825, 11.9705,
        ("Altstadt", "Paulusviertel", "Giebichenstein", "Kröllwitz", "Südstadt", "Neustadt"),
        2100, 7.0, 242_000, "0345",
    ),
    DemoPlace(
        "Dessau-Roßlau", "Sachsen-Anhalt", ("06842", "06844", "06846", "06847", "06862"), 51.8353, 12.2461,
        ("Innenstadt", "Ziebigk", "Törten", "Mildensee", "Roßlau"),
        1300, 5.8, 75_000, "0340",
    ),
    # Schleswig-Holstein
    DemoPlace(
        "Kiel", "Schleswig-Holstein", ("24103", "24105", "24106", "24114", "24118"), 54.3233, 10.1228,
        ("Düsternbrook", "Ravensberg", "Brunswik", "Wik", "Gaarden", "Schreventeich"),
        3200, 10.0, 247_000, "0431",
    ),
    DemoPlace(
        "Lübeck", "Schleswig-Holstein", ("23552", "23554", "23564", "23566", "23570"), 53.8655, 10.6866,
        ("Innenstadt", "St. Gertrud", "St. Jürgen", "St. Lorenz", "Travemünde", "Moisling"),
        3400, 10.0, 218_000, "0451",
    ),
    DemoPlace(
        "Flensburg", "Schleswig-Holstein", ("24937", "24939", "24941", "24943", "24944"), 54.7937, 9.4470,
        ("Altstadt", "Jürgensby", "Mürwik", "Westliche Höhe", "Fruerlund", "Weiche"),
        2800, 9.0, 92_000, "0461",
    ),
    # Thüringen
    DemoPlace(
        "Erfurt", "Thüringen", ("99084", "99085", "99089", "99096"), 50.9848, 11.0299,
        ("Altstadt", "Löbervorstadt", "Brühlervorstadt", "Krämpfervorstadt", "Andreasvorstadt"),
        2700, 8.5, 214_000, "0361",
    ),
    DemoPlace(
        "Jena", "Thüringen", ("07743", "07745", "07747", "07749"), 50.9271, 11.5892,
        ("Zentrum", "Jena-Nord", "Jena-Ost", "Lobeda", "Winzerla", "Wenigenjena"),
        3300, 9.5, 111_000, "03641",
    ),
    DemoPlace(
        "Weimar", "Thüringen", ("99423", "99425", "99427"), 50.9795, 11.3235,
        ("Altstadt", "Westvorstadt", "Südstadt", "Schöndorf", "Oberweimar"),
        2800, 8.5, 65_000, "03643",
    ),
)

# Big cities get more listings (and offices) than small towns, but not in proportion: every place should have some.
PLACES_BY_SIZE = Weighted({place: math.sqrt(place.residents) for place in DEMO_PLACES})
PLACE_BY_NAME = {place.name: place for place in DEMO_PLACES}


# District names that read wrong after a bare "in" ("in der List", "auf dem Kaßberg"); the suffix rule does the rest.
_DISTRICTS_WITH_ARTICLE = frozenset(
    {"Wik", "Paradies", "Gallus", "Herrenkrug", "List", "Kaßberg", "Sonnenberg", "Galgenberg", "Frauenland",
     "Kohlhof", "Eschberg", "Stühlinger", "Geist"}
)
_ARTICLE_SUFFIXES = ("stadt", "viertel", "au", "burg", "zentrum", "end", "tor", "insel", "höhe", "westen", "feld",
                     "ost", "mitte")


def in_district(district: str) -> str:
    """'in Schwabing', but 'im Stadtteil Altstadt' where German needs an article ('in der Altstadt')."""
    if district in _DISTRICTS_WITH_ARTICLE or district.casefold().endswith(_ARTICLE_SUFFIXES):
        return f"im Stadtteil {district}"
    return f"in {district}"
