"""The relay's word list: normalisation, loading and lookup.

The engine only ever sees a callable that returns the unknown words (``engine.Lexicon``); a :class:`WordList`
is such a callable. This module is a library with no network code: the list is never sent anywhere, and
``repr``/``str`` of a :class:`WordList` never show words.

Lexicon specs accepted by :func:`load_lexicon`:

- a name from :data:`NAMED_LEXICONS` (``"fr"``: the union of ``lexicons/fr.txt.gz``, MPL-2.0, and
  ``lexicons/fr-extra.txt.gz``, CC BY-SA 4.0 — two files, never merged on disk);
- a path to a host's own plain word list: UTF-8 (gzip allowed, detected by its magic bytes), one word per
  line, normalised by :func:`normalise` (accents stripped, upper case, ``^[A-Z]{2,13}$``); blank lines and
  lines starting with ``#`` are skipped; any other line that cannot be normalised is an error that names
  every such line number;
- several such paths (a sequence, or one string joined with ``os.pathsep``): their union.

The first load of a source builds a DAWG (``dawg2``) and caches it under ``cache_dir`` keyed by the source's
sha256 (for a union: the sha256 of its parts' sha256s, in order) and :data:`CACHE_FORMAT`, so later starts
only map the ~0.5 MB cache file. A changed source has a new sha256, hence a new cache entry; stale entries of
the same source name are removed.

``lexicons/build.py`` imports :func:`normalise` from here: the shipped list and a host's list follow one rule.
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import json
import os
import re
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Final, Protocol, cast

import dawg  # type: ignore[import-not-found,unused-ignore]

__all__ = [
    "CACHE_FORMAT",
    "MAX_LEN",
    "MIN_LEN",
    "NAMED_LEXICONS",
    "LexiconError",
    "WordList",
    "default_cache_dir",
    "lexicon_files",
    "load_lexicon",
    "normalise",
    "normalise_lines",
]

MIN_LEN: Final = 2
MAX_LEN: Final = 13  # the board is 13 squares wide
_WORD_RE: Final = re.compile(rf"[A-Z]{{{MIN_LEN},{MAX_LEN}}}")
# Ligatures are letters of their own in Unicode (no NFD decomposition), so they are spelled out by hand.
_LIGATURES: Final = str.maketrans({"Œ": "OE", "œ": "OE", "Æ": "AE", "æ": "AE"})

_ROOT: Final = Path(__file__).resolve().parent.parent
#: Named lists and their files; a list of several files is their union (each file keeps its own licence).
NAMED_LEXICONS: Final[dict[str, tuple[Path, ...]]] = {
    "fr": (_ROOT / "lexicons" / "fr.txt.gz", _ROOT / "lexicons" / "fr-extra.txt.gz"),
}
# Bump when normalisation or the cache layout changes: old cache entries then stop matching.
CACHE_FORMAT: Final = 1
_CACHE_ENTRY_RE: Final = re.compile(r"-v\d+-[0-9a-f]{64}\.(dawg|json)")
_MAX_LISTED_LINES: Final = 20
_GZIP_MAGIC: Final = b"\x1f\x8b"


class LexiconError(ValueError):
    """A lexicon could not be loaded; ``code`` is stable, ``params`` names the input.

    Codes: ``lexicon_not_found``, ``lexicon_bad_lines`` (``params["lines"]``: comma-separated line numbers),
    ``lexicon_empty``, ``lexicon_unreadable`` (not gzip though it says so, or an OS error).
    """

    def __init__(self, code: str, message: str, params: dict[str, str | int] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params: dict[str, str | int] = dict(params or {})
        #: 1-based numbers of the lines that could not be normalised (``lexicon_bad_lines`` only).
        self.lines: list[int] = []

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "params": dict(self.params)}


def normalise(word: str) -> str | None:
    """Return ``word`` as the board spells it, or None if it cannot be a board word.

    NFD, combining marks dropped (é→E, ç→C), Œ→OE, Æ→AE, upper case, surrounding white space removed; the
    result must match ``^[A-Z]{2,13}$`` (so hyphens, apostrophes, digits, spaces and one-letter words give
    None). Never raises.
    """
    decomposed = unicodedata.normalize("NFD", word.strip().translate(_LIGATURES))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    upper = stripped.upper()
    return upper if _WORD_RE.fullmatch(upper) else None


def normalise_lines(lines: Iterable[bytes | str], *, source: str) -> set[str]:
    """Normalise a word list given as lines (1-based numbering); return the set of board words.

    Blank lines and lines starting with ``#`` are skipped; a UTF-8 BOM and CR/LF endings are tolerated.
    Raises LexiconError ``lexicon_bad_lines`` naming every line that is not UTF-8 or does not normalise
    (``err.lines`` holds them all, the message the first few), or ``lexicon_empty`` if no word remains.
    """
    words: set[str] = set()
    bad: list[tuple[int, str]] = []
    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                bad.append((number, repr(raw[:40])[2:-1]))
                continue
        else:
            line = raw
        if number == 1:
            line = line.removeprefix("\ufeff")
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        word = normalise(text)
        if word is None:
            bad.append((number, text[:40]))
        else:
            words.add(word)
    if bad:
        shown = ", ".join(f"line {n} {t!r}" for n, t in bad[:_MAX_LISTED_LINES])
        more = f" and {len(bad) - _MAX_LISTED_LINES} more" if len(bad) > _MAX_LISTED_LINES else ""
        err = LexiconError(
            "lexicon_bad_lines",
            f"{source}: {len(bad)} line(s) are not one word of {MIN_LEN}-{MAX_LEN} letters A-Z after "
            f"stripping accents: {shown}{more}",
            {"source": source, "count": len(bad), "lines": ",".join(str(n) for n, _ in bad)},
        )
        err.lines = [n for n, _ in bad]
        raise err
    if not words:
        raise LexiconError("lexicon_empty", f"{source}: no words", {"source": source})
    return words


class _Dawg(Protocol):
    # The subset of dawg.CompletionDAWG used here (the extension module ships no type information).
    def __contains__(self, key: object) -> bool: ...
    def iterkeys(self, prefix: str = "") -> Iterator[str]: ...
    def has_keys_with_prefix(self, prefix: str) -> bool: ...
    def load(self, path: str) -> _Dawg: ...
    def save(self, path: str) -> None: ...


class WordList:
    """An immutable set of board words (upper case A-Z, 2-13 letters) backed by a DAWG.

    Offers: ``word in wl`` (exact, case-sensitive: only normalised words can be members), ``wl(words)`` /
    ``wl.unknown(words)`` (the engine's Lexicon), ``len(wl)``, ``iter(wl)`` (all words, sorted, lazily),
    ``wl.with_prefix(p)`` (sorted words starting with ``p``) and ``wl.has_prefix(p)`` for move generators,
    ``name`` (the spec it was loaded from) and ``sha256`` (of the source file's bytes).
    """

    __slots__ = ("_count", "_dawg", "name", "sha256")

    def __init__(self, words: _Dawg, *, name: str, sha256: str, count: int) -> None:
        self._dawg = words
        self._count = count
        self.name = name
        self.sha256 = sha256

    @classmethod
    def from_words(cls, words: Iterable[str], *, name: str = "memory") -> WordList:
        """Build from already normalised words (not re-checked); mainly for tests and bots' fixtures.

        ``sha256`` is that of the sorted words as a file (one per line), as a content key for caches.
        """
        unique = sorted(set(words))
        digest = hashlib.sha256("".join(f"{w}\n" for w in unique).encode()).hexdigest()
        return cls(cast(_Dawg, dawg.CompletionDAWG(unique)), name=name, sha256=digest, count=len(unique))

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self._dawg

    def unknown(self, words: Sequence[str]) -> list[str]:
        """Return the words not in the list, in input order, each once. Never raises for str input."""
        seen: set[str] = set()
        missing: list[str] = []
        for word in words:
            if word not in seen:
                seen.add(word)
                if word not in self._dawg:
                    missing.append(word)
        return missing

    __call__ = unknown

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return self._dawg.iterkeys("")

    def with_prefix(self, prefix: str) -> Iterator[str]:
        """Words starting with ``prefix`` (including ``prefix`` itself if it is a word), sorted."""
        return self._dawg.iterkeys(prefix)

    def has_prefix(self, prefix: str) -> bool:
        """True if some word starts with ``prefix`` (the empty prefix included)."""
        return self._dawg.has_keys_with_prefix(prefix)

    def __repr__(self) -> str:
        return f"WordList(name={self.name!r}, words={self._count}, sha256={self.sha256[:12]!r})"


def default_cache_dir() -> Path:
    """``$LEXIO_LEXICON_CACHE`` if set, else ``.cache/lexicon`` at the repository root (gitignored)."""
    env = os.environ.get("LEXIO_LEXICON_CACHE")
    return Path(env) if env else _ROOT / ".cache" / "lexicon"


def lexicon_files(spec: str | Sequence[str]) -> tuple[Path, ...]:
    """The files a lexicon spec names: a named list's files, one path, or several paths.

    A string that is neither a name nor an existing file is split on ``os.pathsep`` (``a.txt:b.txt``).
    Raises LexiconError ``lexicon_not_found`` naming the first spec part that is not a readable file.
    """
    if isinstance(spec, str):
        named = NAMED_LEXICONS.get(spec)
        if named is not None:
            return named
        parts = [spec] if Path(spec).is_file() or os.pathsep not in spec else spec.split(os.pathsep)
    else:
        parts = list(spec)
    if not parts:
        raise LexiconError("lexicon_not_found", "no lexicon given", {"spec": ""})
    for part in parts:
        if not Path(part).is_file():
            names = ", ".join(sorted(NAMED_LEXICONS))
            raise LexiconError(
                "lexicon_not_found",
                f"lexicon {part!r} is neither a known name ({names}) nor a readable file",
                {"spec": part},
            )
    return tuple(Path(part) for part in parts)


def load_lexicon(spec: str | Sequence[str], *, cache_dir: Path | None = None) -> WordList:
    """Load a named lexicon (``"fr"``), a word-list file or the union of several, using or filling the cache.

    ``cache_dir`` defaults to :func:`default_cache_dir`; if it cannot be written the list is still loaded
    (built in memory each start). Raises LexiconError: ``lexicon_not_found`` (unknown name / missing file),
    ``lexicon_unreadable``, ``lexicon_bad_lines`` (naming the file and its lines), ``lexicon_empty``.
    """
    paths = lexicon_files(spec)
    name = spec if isinstance(spec, str) else os.pathsep.join(spec)
    blobs: list[bytes] = []
    for path in paths:
        try:
            blobs.append(path.read_bytes())
        except OSError as exc:
            raise LexiconError("lexicon_unreadable", f"{path}: {exc.strerror}", {"spec": name}) from exc
    digests = [hashlib.sha256(blob).hexdigest() for blob in blobs]
    # One file keeps its own hash as the key (so its cache entry and sha256 are the file's); a union's key
    # covers every part in order.
    digest = digests[0] if len(digests) == 1 else hashlib.sha256("\n".join(digests).encode()).hexdigest()
    cache = default_cache_dir() if cache_dir is None else cache_dir
    slug = re.sub(r"[^A-Za-z0-9_.-]", "_", "+".join(path.name for path in paths))[:40]
    base = cache / f"{slug}-v{CACHE_FORMAT}-{digest}"
    cached = _read_cache(base, digest)
    if cached is not None:
        words, count = cached
        return WordList(words, name=name, sha256=digest, count=count)

    union: set[str] = set()
    for path, blob in zip(paths, blobs, strict=True):
        text = _decompress(blob, path, name)
        union |= normalise_lines(text.split(b"\n"), source=str(path))
    unique = sorted(union)
    built = cast(_Dawg, dawg.CompletionDAWG(unique))
    _write_cache(base, slug, built, digest, len(unique))
    return WordList(built, name=name, sha256=digest, count=len(unique))


def _decompress(data: bytes, path: Path, spec: str) -> bytes:
    if not data.startswith(_GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise LexiconError("lexicon_unreadable", f"{path}: bad gzip data ({exc})", {"spec": spec}) from exc


def _read_cache(base: Path, digest: str) -> tuple[_Dawg, int] | None:
    try:
        meta = json.loads(Path(f"{base}.json").read_text("utf-8"))
        if meta.get("sha256") != digest or meta.get("format") != CACHE_FORMAT:
            return None
        words = cast(_Dawg, dawg.CompletionDAWG()).load(f"{base}.dawg")
        return words, int(meta["count"])
    # A missing, partial or corrupt cache entry is simply rebuilt.
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _write_cache(base: Path, slug: str, words: _Dawg, digest: str, count: int) -> None:
    cache = base.parent
    meta = json.dumps({"format": CACHE_FORMAT, "sha256": digest, "count": count})
    try:
        cache.mkdir(parents=True, exist_ok=True)
        # Entries for older versions of the same source are dead weight.
        for old in cache.glob(f"{glob.escape(slug)}-v*"):
            rest = old.name[len(slug) :]
            if _CACHE_ENTRY_RE.fullmatch(rest) and not old.name.startswith(base.name):
                old.unlink(missing_ok=True)
        # Temporary names then rename, so a concurrent reader never sees a half-written file; the .json goes
        # last and is what marks the entry complete.
        for suffix in (".dawg", ".json"):
            fd, tmp = tempfile.mkstemp(dir=cache, prefix=".tmp-")
            os.close(fd)
            try:
                if suffix == ".dawg":
                    words.save(tmp)
                else:
                    Path(tmp).write_text(meta, "utf-8")
                os.replace(tmp, f"{base}{suffix}")
            finally:
                Path(tmp).unlink(missing_ok=True)
    except OSError:
        # Read-only or full disk: the list still works, it is just rebuilt at the next start.
        return
