"""The shipped French lists: lexicons/fr.txt.gz (MPL-2.0) and fr-extra.txt.gz (CC BY-SA 4.0), their pinned
identity, their form, their union as ``fr`` and sample contents."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from relay.lexicon import NAMED_LEXICONS, WordList, normalise_lines

ROOT = Path(__file__).resolve().parents[2]
LEXICONS = ROOT / "lexicons"
SHIPPED = LEXICONS / "fr.txt.gz"
EXTRA = LEXICONS / "fr-extra.txt.gz"
# Change only together with lexicons/README.md, after `lexicons/build.py` (see there).
FR_WORDS = 369_095
FR_SHA256 = "e47e8fbdfa39d4efca27889ee1dd000972e63270b78863780a7744e19db4c618"
EXTRA_WORDS = 17_730
EXTRA_SHA256 = "e66bd3a570353ed4f696d39878b5534bd19e3a1cf2620e8778295159845716c1"
PRUNED_SHA256 = "b06da2f8599642113137e9ee40281a186f05643972ee9a0b0467ca8962f9a6c1"
UNION_WORDS = FR_WORDS + EXTRA_WORDS  # the two files never share a word


def shipped_lines(path: Path = SHIPPED) -> list[str]:
    return gzip.decompress(path.read_bytes()).decode("ascii").split("\n")


def test_fr_is_the_union_of_the_two_shipped_files() -> None:
    assert NAMED_LEXICONS["fr"] == (SHIPPED, EXTRA)


def test_shipped_lists_have_the_pinned_sha256_and_count(fr: WordList) -> None:
    assert hashlib.sha256(SHIPPED.read_bytes()).hexdigest() == FR_SHA256
    assert hashlib.sha256(EXTRA.read_bytes()).hexdigest() == EXTRA_SHA256
    assert hashlib.sha256((LEXICONS / "fr-pruned.txt").read_bytes()).hexdigest() == PRUNED_SHA256
    assert len(fr) == UNION_WORDS


def test_readme_states_the_shipped_counts_and_sha256() -> None:
    readme = (LEXICONS / "README.md").read_text("utf-8")
    for figure in (FR_SHA256, EXTRA_SHA256, f"{FR_WORDS:,}", f"{EXTRA_WORDS:,}", f"{UNION_WORDS:,}"):
        assert figure in readme


@pytest.mark.parametrize(("path", "count", "shortest"), [(SHIPPED, FR_WORDS, 2), (EXTRA, EXTRA_WORDS, 3)])
def test_shipped_list_is_sorted_unique_upper_case_board_words(path: Path, count: int, shortest: int) -> None:
    lines = shipped_lines(path)
    assert lines[-1] == ""  # newline-terminated
    words = lines[:-1]
    assert len(words) == count
    assert words == sorted(set(words))
    bad = [w for w in words if not re.fullmatch(rf"[A-Z]{{{shortest},13}}", w)]
    assert bad == []


@pytest.mark.parametrize("path", [SHIPPED, EXTRA])
def test_shipped_gzip_header_holds_no_build_time_or_file_name(path: Path) -> None:
    header = path.read_bytes()[:10]
    assert header[:3] == b"\x1f\x8b\x08"
    assert header[3] == 0  # FLG: no FNAME, no comment, no extra
    assert header[4:8] == b"\0\0\0\0"  # MTIME


def test_every_word_iterated_is_a_member_and_iteration_is_the_union_of_the_files(fr: WordList) -> None:
    assert list(fr) == sorted(shipped_lines(SHIPPED)[:-1] + shipped_lines(EXTRA)[:-1])


def test_the_supplement_is_never_merged_into_the_mpl_file() -> None:
    main, extra = set(shipped_lines(SHIPPED)[:-1]), set(shipped_lines(EXTRA)[:-1])
    assert main & extra == set()
    assert len(extra) >= 15_000


@pytest.mark.parametrize(
    "word",
    [
        # conjugations (all persons, tenses and moods are generated from the affix rules)
        "MANGEAIENT",
        "MANGEASSIONS",
        "MANGERONS",
        "FINIRENT",
        "FINISSIONS",
        "ALLIONS",
        "IRAIENT",
        "VENDRAIS",
        "PRISSENT",
        "FIMES",
        "ETIONS",
        "SOMMES",
        "EUSSIEZ",
        "PEIGNIT",
        "CROIRAS",
        "SACHANT",
        # plurals
        "CHEVAUX",
        "BIJOUX",
        "GENOUX",
        "JOURNAUX",
        "MAISONS",
        "CIEUX",
        "OEILS",
        "YEUX",
        # feminines
        "BELLE",
        "HEUREUSE",
        "ACTRICE",
        "NOUVELLE",
        "NAIVE",
        "CHATTE",
        "BLANCHE",
        "VEUVE",
        # accents and ligatures stripped
        "ETE",
        "OEUVRE",
        "COEUR",
        "GARCON",
        "FORET",
        "EVENEMENT",
        # two-letter words added by fr-add.txt
        "AA",
        "KA",
        "OM",
        "TO",
        # two-letter Scrabble words the Grammalecte list has and fr-remove.txt once removed
        "UD",
        "VS",
        # prefixed units (from the prefix + plural continuation rules)
        "KILOMETRES",
        "AMPERES",
        "HECTOPASCALS",
    ],
)
def test_sample_inflected_forms_are_words(fr: WordList, word: str) -> None:
    assert word in fr


@pytest.mark.parametrize(
    "word",
    [
        # abbreviations and symbols
        "ETC",
        "CF",
        "KM",
        "CM",
        "KG",
        "HLM",
        "HTTP",
        "JANV",
        "PPM",
        "WWW",
        "EUR",
        "USD",
        # acronyms and proper nouns (capitalised in the source)
        "SNCF",
        "ONU",
        "UNESCO",
        "FRANCE",
        "MARSEILLE",
        "BRUXELLES",
        "MITTERRAND",
        # junk pruned by fr-remove.txt
        "ZZZZ",
        "SIN",
        "NEW",
        # longer than the board
        "ANTICONSTITUTIONNELLEMENT",
    ],
)
def test_sample_abbreviations_and_names_are_not_words(fr: WordList, word: str) -> None:
    assert word not in fr


def test_patch_lists_are_applied(fr: WordList) -> None:
    added = normalise_lines((LEXICONS / "fr-add.txt").read_text("utf-8").splitlines(), source="fr-add")
    removed = normalise_lines((LEXICONS / "fr-remove.txt").read_text("utf-8").splitlines(), source="fr-rm")
    assert [w for w in sorted(added) if w not in fr] == []
    assert [w for w in sorted(removed) if w in fr] == []


def test_licence_and_notice_ship_beside_the_list() -> None:
    licence = (LEXICONS / "LICENSE.MPL-2.0").read_text("utf-8")
    assert licence.startswith("Mozilla Public License Version 2.0")
    assert "Exhibit B" in licence  # the full text, not a pointer to it
    notice = (LEXICONS / "NOTICE").read_text("utf-8")
    assert "Dicollecte/Grammalecte dictionary, Olivier R. and contributors" in notice


def test_the_supplement_has_its_own_cc_by_sa_licence_and_notice() -> None:
    licence = (LEXICONS / "LICENSE.CC-BY-SA-4.0").read_text("utf-8")
    assert licence.startswith("Attribution-ShareAlike 4.0 International")
    assert "Section 8 -- Interpretation." in licence  # the full legal code
    notice = (LEXICONS / "NOTICE.fr-extra").read_text("utf-8")
    assert "fr-extra.txt.gz" in notice
    assert "CC BY-SA 4.0" in notice
    assert "Lexique 3.83, Boris New, Christophe Pallier et al., http://www.lexique.org" in notice
    assert "the French Wiktionary's contributors" in notice
    # The MPL notice points to the supplement's licence instead of claiming it.
    mpl = (LEXICONS / "NOTICE").read_text("utf-8")
    assert "Lexique" not in mpl
    assert "fr-extra.txt.gz is a separate file under CC BY-SA 4.0" in mpl


@pytest.mark.slow
def test_build_reproduces_the_shipped_files_byte_for_byte(lexicon_build: ModuleType) -> None:
    cache: Path = lexicon_build.DEFAULT_CACHE
    sources = lexicon_build.SOURCES
    # Tests never reach the network: this one runs only where the pinned sources were fetched before.
    if importlib.util.find_spec("spylls") is None or not all((cache / s.filename).is_file() for s in sources):
        reason = f"needs spylls and the pinned sources in {cache} (run lexicons/build.py --fetch once)"
        # `make test` fetches the sources first and sets this, so in CI the rebuild can never be skipped.
        if os.environ.get("LEXIO_REQUIRE_LEXICON_BUILD") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    done = subprocess.run(
        [sys.executable, str(LEXICONS / "build.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for digest in (FR_SHA256, EXTRA_SHA256, PRUNED_SHA256):
        assert digest in done.stdout
