"""A packed, minimal DAWG of the word list, walkable node by node, for the move generator.

The relay's :class:`relay.lexicon.WordList` answers membership and prefix queries, but move generation needs
to walk the word graph one letter at a time and to list a node's children cheaply. This module builds that
graph once (Daciuk et al.'s incremental construction of a minimal acyclic automaton from sorted words) and
stores it in three ``array('I')`` objects, so the 369k-word French list costs a few MiB instead of the
100+ MiB a dict-of-dicts trie would:

- ``masks[n]``: bits 0-25 say which letters A-Z leave node ``n``; bit 26 (:data:`TERMINAL`) says a word ends
  there;
- ``bases[n]``: where node ``n``'s edges start in ``targets``;
- ``targets[bases[n] + rank]``: the child reached by the ``rank``-th letter of ``masks[n]`` (letters in
  alphabetical order), so ``child(n, L)`` is one popcount away.

The words themselves never leave the server: the graph lives in the relay process only. Building the French
list takes seconds, so :func:`load_graph` caches it on disk next to the lexicon's own cache, keyed by the
word list's sha256 and :data:`GRAPH_FORMAT`.
"""

from __future__ import annotations

import os
import re
import struct
import sys
import tempfile
from array import array
from collections.abc import Iterable, Sized
from pathlib import Path
from typing import Final, Protocol

from relay.lexicon import CACHE_FORMAT as LEXICON_FORMAT

__all__ = [
    "ALL_LETTERS",
    "GRAPH_FORMAT",
    "TERMINAL",
    "GraphError",
    "WordGraph",
    "build_graph",
    "letter_mask",
    "load_graph",
]

TERMINAL: Final = 1 << 26
ALL_LETTERS: Final = TERMINAL - 1


def letter_mask(text: str) -> int:
    """The bit mask (A = bit 0) of the letters A-Z in ``text``; other characters (a blank's ``?``) are
    left out."""
    mask = 0
    for ch in text:
        if "A" <= ch <= "Z":
            mask |= 1 << (ord(ch) - 65)
    return mask


#: Bump when the build or the file layout changes: older cache files then stop matching.
GRAPH_FORMAT: Final = 1
#: Lists smaller than this are built on each load rather than cached (a 20k-word list builds in ~0.1 s).
CACHE_MIN_WORDS: Final = 20_000
_MAGIC: Final = b"LEXIODAWG"
_HEADER: Final = struct.Struct("<9sIIIII")  # magic, format, root, nodes, edges, words
_ORD_A: Final = ord("A")


class GraphError(ValueError):
    """A word cannot go into the graph (``code`` ``graph_bad_word``: not 1+ letters A-Z)."""

    code = "graph_bad_word"


class _Words(Protocol):
    # What load_graph needs of relay.lexicon.WordList: iteration and a content hash.
    sha256: str

    def __iter__(self) -> object: ...


class WordGraph:
    """A read-only minimal DAWG over upper-case A-Z words; see the module docstring for the layout."""

    __slots__ = ("bases", "masks", "root", "targets", "words")

    def __init__(
        self, masks: array[int], bases: array[int], targets: array[int], root: int, words: int
    ) -> None:
        self.masks = masks
        self.bases = bases
        self.targets = targets
        self.root = root
        self.words = words

    @property
    def nodes(self) -> int:
        return len(self.masks)

    @property
    def edges(self) -> int:
        return len(self.targets)

    def nbytes(self) -> int:
        """Bytes held by the three arrays (the graph's whole resident cost, bar a few object headers)."""
        return sum(a.itemsize * len(a) for a in (self.masks, self.bases, self.targets))

    def child(self, node: int, letter: int) -> int:
        """The node reached from ``node`` by letter index ``letter`` (0 = A), or -1 if there is none."""
        mask = self.masks[node]
        bit = 1 << letter
        if not mask & bit:
            return -1
        return self.targets[self.bases[node] + (mask & (bit - 1)).bit_count()]

    def walk(self, word: str, node: int | None = None) -> int:
        """The node reached by spelling ``word`` from ``node`` (the root by default), or -1."""
        n = self.root if node is None else node
        for ch in word:
            n = self.child(n, ord(ch) - _ORD_A)
            if n < 0:
                return -1
        return n

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word.isascii() or not word.isupper():
            return False
        n = self.walk(word)
        return n >= 0 and bool(self.masks[n] & TERMINAL)

    def iter_words(self) -> list[str]:
        """Every word, sorted (for tests and checks: the words stay inside the relay)."""
        out: list[str] = []
        stack: list[tuple[int, str]] = [(self.root, "")]
        while stack:
            node, prefix = stack.pop()
            mask = self.masks[node]
            if mask & TERMINAL:
                out.append(prefix)
            base = self.bases[node]
            rank = 0
            kids: list[tuple[int, str]] = []
            for letter in range(26):
                if mask & (1 << letter):
                    kids.append((self.targets[base + rank], prefix + chr(_ORD_A + letter)))
                    rank += 1
            stack.extend(reversed(kids))
        return out

    def to_bytes(self) -> bytes:
        header = _HEADER.pack(_MAGIC, GRAPH_FORMAT, self.root, len(self.masks), len(self.targets), self.words)
        parts = [header]
        for a in (self.masks, self.bases, self.targets):
            if sys.byteorder != "little":  # pragma: no cover - every supported host is little-endian
                a = array("I", a)
                a.byteswap()
            parts.append(a.tobytes())
        return b"".join(parts)

    @classmethod
    def from_bytes(cls, data: bytes) -> WordGraph:
        """Raises ValueError if ``data`` is not a graph of this :data:`GRAPH_FORMAT` or is truncated."""
        if len(data) < _HEADER.size:
            raise ValueError("graph file too short")
        magic, fmt, root, nodes, edges, words = _HEADER.unpack_from(data)
        if magic != _MAGIC or fmt != GRAPH_FORMAT:
            raise ValueError("not a Lexio word graph of this format")
        arrays: list[array[int]] = []
        offset = _HEADER.size
        for count in (nodes, nodes, edges):
            a = array("I")
            end = offset + count * a.itemsize
            if end > len(data):
                raise ValueError("graph file truncated")
            a.frombytes(data[offset:end])
            if sys.byteorder != "little":  # pragma: no cover
                a.byteswap()
            arrays.append(a)
            offset = end
        if offset != len(data) or not 0 <= root < max(nodes, 1):
            raise ValueError("graph file has trailing bytes or a bad root")
        return cls(arrays[0], arrays[1], arrays[2], root, words)


def build_graph(words: Iterable[str]) -> WordGraph:
    """Build the minimal DAWG of ``words`` (any order, duplicates allowed).

    Raises GraphError if a word is empty or not made of upper-case letters A-Z.
    """
    ordered = sorted(set(words))
    masks = array("I")
    bases = array("I")
    targets = array("I")
    # signature (terminal, ((letter, child), ...)) -> node id; children are always registered first.
    register: dict[tuple[bool, tuple[tuple[int, int], ...]], int] = {}

    def freeze(terminal: bool, edges: list[tuple[int, int]]) -> int:
        sig = (terminal, tuple(edges))
        found = register.get(sig)
        if found is not None:
            return found
        node = len(masks)
        mask = TERMINAL if terminal else 0
        for letter, _ in edges:
            mask |= 1 << letter
        masks.append(mask)
        bases.append(len(targets))
        targets.extend(child for _, child in edges)
        register[sig] = node
        return node

    # The path of the previous word: pending nodes as [terminal, edges to already frozen children].
    terms: list[bool] = [False]
    edges: list[list[tuple[int, int]]] = [[]]
    prev: list[int] = []
    for word in ordered:
        if not word or not word.isascii() or not word.isalpha() or not word.isupper():
            raise GraphError(f"cannot put {word!r} in the word graph: upper-case letters A-Z only")
        codes = [ord(ch) - _ORD_A for ch in word]
        common = 0
        limit = min(len(prev), len(codes))
        while common < limit and prev[common] == codes[common]:
            common += 1
        # Freeze the previous word's suffix below the shared prefix: it can never change again.
        while len(terms) > common + 1:
            node = freeze(terms.pop(), edges.pop())
            edges[-1].append((prev[len(terms) - 1], node))
        for _ in codes[common:]:
            terms.append(False)
            edges.append([])
        terms[-1] = True
        prev = codes
    while len(terms) > 1:
        node = freeze(terms.pop(), edges.pop())
        edges[-1].append((prev[len(terms) - 1], node))
    root = freeze(terms[0], edges[0])
    return WordGraph(masks, bases, targets, root, len(ordered))


def default_graph_dir() -> Path:
    """``$LEXIO_LEXICON_CACHE/movegen`` if that variable is set, else ``.cache/movegen`` at the repo root."""
    env = os.environ.get("LEXIO_LEXICON_CACHE")
    root = Path(env) if env else Path(__file__).resolve().parents[2] / ".cache"
    return root / "movegen"


def load_graph(
    words: _Words | Iterable[str], *, cache_dir: Path | None = None, cache_min_words: int = CACHE_MIN_WORDS
) -> WordGraph:
    """The graph of a word list, cached on disk for big lists.

    ``words`` is a :class:`relay.lexicon.WordList` or any iterable of words. A list with a non-empty
    ``sha256`` and at least ``cache_min_words`` words is read from ``cache_dir`` (default
    :func:`default_graph_dir`) when cached there, else built and written there; a cache that cannot be read
    is rebuilt, one that cannot be written is skipped. Other lists are simply built (smaller lists build in a
    fraction of a second; caching them would only litter the cache). Raises GraphError for a word that is not
    A-Z.
    """
    digest = getattr(words, "sha256", "")
    size = len(words) if isinstance(words, Sized) else None
    if not isinstance(digest, str) or not digest or size is None or size < cache_min_words:
        return build_graph(words)  # type: ignore[arg-type]
    # The source's hash alone would miss a change in the loader's normalisation: its format is in the key too.
    slug = re.sub(r"[^A-Za-z0-9_.]", "_", str(getattr(words, "name", "list")))[:40]
    prefix = f"graph-v{GRAPH_FORMAT}-l{LEXICON_FORMAT}-{slug}-"
    folder = default_graph_dir() if cache_dir is None else cache_dir
    path = folder / f"{prefix}{digest}.bin"
    try:
        cached = WordGraph.from_bytes(path.read_bytes())
        if cached.words == size:
            return cached
    # Missing or damaged cache: rebuild below.
    except (OSError, ValueError):
        pass
    graph = build_graph(words)  # type: ignore[arg-type]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-graph-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(graph.to_bytes())
            os.replace(tmp, path)
        finally:
            Path(tmp).unlink(missing_ok=True)
        # Older graphs of the same list (another version of its file, or an older format) are dead weight.
        for old in folder.glob("graph-*.bin"):
            stale_format = not old.name.startswith(f"graph-v{GRAPH_FORMAT}-l{LEXICON_FORMAT}-")
            if old != path and (old.name.startswith(prefix) or stale_format):
                old.unlink(missing_ok=True)
    except OSError:
        pass
    return graph
