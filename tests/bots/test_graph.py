"""The word graph holds exactly the list's words, survives its disk cache, and refuses what is not a word."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relay.bots.graph import GraphError, WordGraph, build_graph, load_graph
from relay.lexicon import WordList

words = st.text(alphabet="ABCDEZ", min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(listed=st.lists(words, max_size=60), probes=st.lists(words, max_size=20))
def test_the_graph_holds_exactly_the_words_it_was_built_from(listed: list[str], probes: list[str]) -> None:
    graph = build_graph(listed)
    assert graph.iter_words() == sorted(set(listed))
    assert graph.words == len(set(listed))
    for probe in probes + listed:
        assert (probe in graph) == (probe in set(listed))


@settings(max_examples=30, deadline=None)
@given(listed=st.lists(words, min_size=1, max_size=60))
def test_the_graph_is_minimal_shared_suffixes_share_nodes(listed: list[str]) -> None:
    graph = build_graph(listed)
    # A minimal DAWG never has two nodes with the same outgoing edges and finality.
    signatures = set()
    for node in range(graph.nodes):
        base, mask = graph.bases[node], graph.masks[node]
        kids = tuple(graph.targets[base : base + (mask & ((1 << 26) - 1)).bit_count()])
        signatures.add((mask, kids))
    assert len(signatures) == graph.nodes


def test_the_graph_round_trips_through_bytes() -> None:
    graph = build_graph(["MAISON", "MAISONS", "RAISON", "AS"])
    again = WordGraph.from_bytes(graph.to_bytes())
    assert again.iter_words() == graph.iter_words()
    assert again.root == graph.root


def test_a_truncated_or_foreign_graph_file_is_refused() -> None:
    data = build_graph(["AB", "BA"]).to_bytes()
    with pytest.raises(ValueError, match=r"truncated|trailing"):
        WordGraph.from_bytes(data[:-4])
    with pytest.raises(ValueError, match="format"):
        WordGraph.from_bytes(b"NOTAGRAPH" + data[9:])
    with pytest.raises(ValueError, match="short"):
        WordGraph.from_bytes(b"LEX")


@pytest.mark.parametrize("bad", ["", "maison", "MAISON!", "ÉTÉ", "A B"])
def test_a_word_that_is_not_upper_case_a_to_z_is_refused(bad: str) -> None:
    with pytest.raises(GraphError, match="A-Z"):
        build_graph(["AB", bad])


def test_a_list_loaded_from_a_file_is_cached_and_a_damaged_cache_rebuilt(tmp_path: Path) -> None:
    wl = WordList.from_words(["MAISON", "MAISONS", "AS"], name="t")
    first = load_graph(wl, cache_dir=tmp_path, cache_min_words=0)
    (cached,) = tmp_path.glob("graph-*.bin")
    assert WordGraph.from_bytes(cached.read_bytes()).iter_words() == first.iter_words()
    cached.write_bytes(b"garbage")
    again = load_graph(wl, cache_dir=tmp_path, cache_min_words=0)
    assert again.iter_words() == ["AS", "MAISON", "MAISONS"]
    assert WordGraph.from_bytes(cached.read_bytes()).iter_words() == again.iter_words()


def test_a_cache_for_a_different_word_count_is_not_trusted(tmp_path: Path) -> None:
    smaller = WordList.from_words(["AS"], name="t")
    load_graph(smaller, cache_dir=tmp_path, cache_min_words=0)
    bigger = WordList.from_words(["AS", "ES"], name="t")
    bigger.sha256 = smaller.sha256  # same key, different content: the word count gives it away
    assert load_graph(bigger, cache_dir=tmp_path, cache_min_words=0).iter_words() == ["AS", "ES"]


def test_a_small_or_unkeyed_list_is_built_without_touching_the_disk(tmp_path: Path) -> None:
    assert load_graph(["AS", "ES"], cache_dir=tmp_path, cache_min_words=0).iter_words() == ["AS", "ES"]
    assert load_graph(WordList.from_words(["AS"], name="t"), cache_dir=tmp_path).iter_words() == ["AS"]
    assert not any(tmp_path.iterdir())


def test_the_french_list_fits_in_a_few_mebibytes(fr_words: WordList, fr_graph: WordGraph) -> None:
    assert fr_graph.words == len(fr_words)
    assert fr_graph.nbytes() < 4 * 2**20
    for word in ("MAISON", "ETE", "ZYTHUMS", "AA"):
        assert (word in fr_graph) == (word in fr_words)


def test_a_new_version_of_a_list_replaces_its_old_cached_graph(tmp_path: Path) -> None:
    (tmp_path / "graph-v0-old.bin").write_bytes(b"from an older format")
    old = WordList.from_words(["AS"], name="fr")
    load_graph(old, cache_dir=tmp_path, cache_min_words=0)
    other = WordList.from_words(["OS"], name="other")
    load_graph(other, cache_dir=tmp_path, cache_min_words=0)
    new = WordList.from_words(["AS", "ES"], name="fr")
    load_graph(new, cache_dir=tmp_path, cache_min_words=0)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 2
    assert any(new.sha256 in n for n in names) and any(other.sha256 in n for n in names)
