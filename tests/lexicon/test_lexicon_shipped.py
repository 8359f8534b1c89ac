"""The shipped French list lexicons/fr.txt.gz: its pinned identity, its form and sample contents."""

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
# Change only together with lexicons/README.md, after `lexicons/build.py` (see there).
FR_WORDS = 369_462
FR_SHA256 = "1767a0ac55cf724fa62e08249abef023155cf7875e6e5d512ada7a7296853f9a"


def shipped_lines() -> list[str]:
    return gzip.decompress(SHIPPED.read_bytes()).decode("ascii").split("\n")


def test_fr_is_the_shipped_file() -> None:
    assert NAMED_LEXICONS["fr"] == SHIPPED


def test_shipped_list_has_the_pinned_sha256_and_count(fr: WordList) -> None:
    assert hashlib.sha256(SHIPPED.read_bytes()).hexdigest() == FR_SHA256
    assert fr.sha256 == FR_SHA256
    assert len(fr) == FR_WORDS


def test_readme_states_the_shipped_count_and_sha256() -> None:
    readme = (LEXICONS / "README.md").read_text("utf-8")
    assert FR_SHA256 in readme
    assert f"{FR_WORDS:,}" in readme


def test_shipped_list_is_sorted_unique_upper_case_board_words() -> None:
    lines = shipped_lines()
    assert lines[-1] == ""  # newline-terminated
    words = lines[:-1]
    assert len(words) == FR_WORDS
    assert words == sorted(set(words))
    bad = [w for w in words if not re.fullmatch(r"[A-Z]{2,13}", w)]
    assert bad == []


def test_shipped_gzip_header_holds_no_build_time_or_file_name() -> None:
    header = SHIPPED.read_bytes()[:10]
    assert header[:3] == b"\x1f\x8b\x08"
    assert header[3] == 0  # FLG: no FNAME, no comment, no extra
    assert header[4:8] == b"\0\0\0\0"  # MTIME


def test_every_word_iterated_is_a_member_and_iteration_is_the_file(fr: WordList) -> None:
    assert list(fr) == shipped_lines()[:-1]


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
        "VS",
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


@pytest.mark.slow
def test_build_reproduces_the_shipped_file_byte_for_byte(lexicon_build: ModuleType) -> None:
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
    assert FR_SHA256 in done.stdout
