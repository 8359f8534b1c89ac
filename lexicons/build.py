#!/usr/bin/env python3
"""Build lexicons/fr.txt.gz from its pinned sources, reproducibly (this is the list's MPL-2.0 "source form").

Sources (both Grammalecte/Dicollecte Hunspell dictionaries, MPL-2.0, hashes pinned below):
- npm ``dictionary-fr@3.0.0`` (dictionary v7.5 "classique"), fetched with ``npm pack``;
- Debian ``hunspell-fr-comprehensive`` ``1:7.0-1`` (v7.0 "toutes variantes", 1990-reform spellings),
  fetched with ``apt-get download``; the .deb is unpacked here in Python (ar + tar), no dpkg needed.

Both use two-character affix flags, so every form is generated with ``spylls`` (pip ``spylls==0.1.7``, the
``lexicon-build`` extra; build time only). Forms that are capitalised or mixed-case in the source (proper
nouns, acronyms) and symbol entries are dropped, the rest go through ``relay.lexicon.normalise`` (the loader's
own rule: accents stripped, ``^[A-Z]{2,13}$``), then ``fr-add.txt`` is added and ``fr-remove.txt`` removed.
Output: sorted upper case words, one per line, gzip level 9 with mtime 0 and no file name, so the bytes depend
only on the inputs.

Usage (from the repository root, with the venv):
    .venv/bin/python lexicons/build.py            # (re)write lexicons/fr.txt.gz
    .venv/bin/python lexicons/build.py --check    # rebuild in memory, compare with the shipped file's sha256
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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from relay.lexicon import normalise, normalise_lines  # noqa: E402  (the one shared normalisation rule)

SPYLLS_VERSION = "0.1.7"
OUT = HERE / "fr.txt.gz"
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
    aff: str  # member paths inside the artefact
    dic: str


SOURCES = (
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


def hunspell_forms(base: Path) -> Iterator[str]:
    """Yield every form the .aff/.dic pair accepts that can matter on the board (duplicates included).

    Covers stems, suffixes, prefixes, prefix x suffix cross products, a suffix's continuation suffixes and a
    prefix's continuation suffixes (unit prefixes carry the plural); honours NEEDAFFIX, CIRCUMFIX and
    FORBIDDENWORD, and skips KEEPCASE entries. Affixes that add an apostrophe (elisions l', qu'...) are
    skipped: their forms can never normalise to a board word, and they are most of the combinatorics.
    """
    from spylls.hunspell import Dictionary  # type: ignore[import-untyped]  # build-time only dependency

    dictionary = Dictionary.from_files(str(base))
    aff = dictionary.aff
    need, circ, forbid, keepcase = aff.NEEDAFFIX, aff.CIRCUMFIX, aff.FORBIDDENWORD, aff.KEEPCASE

    def usable(affix: Any) -> bool:
        return "'" not in affix.add and "\u2019" not in affix.add  # straight or typographic apostrophe

    sfx = {flag: [s for s in lst if usable(s)] for flag, lst in aff.SFX.items()}
    pfx = {flag: [p for p in lst if usable(p)] for flag, lst in aff.PFX.items()}

    def suffixed(word: str, flags: Iterable[str]) -> Iterator[tuple[str, Any]]:
        for flag in flags:
            for s in sfx.get(flag, ()):
                if word.endswith(s.strip) and s.cond_regexp.search(word):
                    yield word[: len(word) - len(s.strip)] + s.add, s

    def prefixed(word: str, flags: Iterable[str]) -> Iterator[tuple[str, Any]]:
        for flag in flags:
            for p in pfx.get(flag, ()):
                if word.startswith(p.strip) and p.cond_regexp.search(word):
                    yield p.add + word[len(p.strip) :], p

    for entry in dictionary.dic.words:
        stem, flags = entry.stem, entry.flags
        # KEEPCASE marks symbols whose case matters (km, cd, ppm, www, mmHg): with the unit prefixes they
        # would add ~100 two- and three-letter non-words (CG, KM, HLM...). A real word spelled alike has its
        # own entry.
        if forbid in flags or keepcase in flags:
            continue
        if need not in flags:
            yield stem
        with_suffix = list(suffixed(stem, flags))
        for form, s in with_suffix:
            cont = s.flags
            if need not in cont and circ not in cont:
                yield form
            for form2, _ in suffixed(form, cont):
                yield form2
        for form, p in prefixed(stem, flags):
            cont = p.flags
            if need not in cont and circ not in cont:
                yield form
            strip = len(p.strip)
            if p.crossproduct:
                for sform, s in with_suffix:
                    if s.crossproduct:
                        yield p.add + sform[strip:]
            for sform, _ in suffixed(stem, cont):
                yield p.add + sform[strip:]


def board_words(forms: Iterable[str]) -> set[str]:
    """Forms written in lower case in the source, normalised; capitalised/mixed-case ones (names) dropped."""
    words: set[str] = set()
    for form in forms:
        if form == form.lower():
            word = normalise(form)
            if word is not None:
                words.add(word)
    return words


def read_patch(path: Path) -> set[str]:
    """A patch list: one word per line, ``#`` comments; normalised like any word list (errors name lines)."""
    return normalise_lines(path.read_bytes().split(b"\n"), source=str(path))


def gzip_bytes(text: bytes) -> bytes:
    buf = io.BytesIO()
    # filename="" and mtime=0 keep the header free of build-time data.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(text)
    return buf.getvalue()


def build(cache: Path) -> tuple[bytes, int]:
    """Return (gzip bytes of the list, word count)."""
    words: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="lexio-lexicon-") as tmp:
        for source in SOURCES:
            base = extract(source, fetch(source, cache), Path(tmp))
            found = board_words(hunspell_forms(base))
            print(f"{source.label}: {len(found)} board words", file=sys.stderr)
            words |= found
    add, remove = read_patch(ADD), read_patch(REMOVE)
    if add & remove:
        raise BuildError(f"words both added and removed: {sorted(add & remove)}")
    words = (words | add) - remove
    text = "".join(f"{w}\n" for w in sorted(words)).encode("ascii")
    return gzip_bytes(text), len(words)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="rebuild and compare with the shipped file")
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help=f"source cache (default {DEFAULT_CACHE})"
    )
    parser.add_argument("--out", type=Path, default=OUT, help=f"output file (default {OUT})")
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
        data, count = build(args.cache)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    digest = hashlib.sha256(data).hexdigest()
    print(f"{count} words, {len(data)} bytes gzip, sha256 {digest}, {time.monotonic() - started:.1f} s")
    if args.check:
        shipped = sha256_file(args.out) if args.out.is_file() else "(missing)"
        if shipped != digest:
            print(f"MISMATCH: {args.out} has sha256 {shipped}", file=sys.stderr)
            return 1
        print(f"ok: {args.out} is reproduced byte for byte")
        return 0
    args.out.write_bytes(data)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
