"""The relay's loader: a host's own word list, line-numbered errors, the DAWG cache, the Lexicon callable."""

from __future__ import annotations

import ast
import gzip
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay.lexicon
from relay.lexicon import CACHE_FORMAT, LexiconError, WordList, load_lexicon

WORDS = st.from_regex(r"[A-Z]{2,6}", fullmatch=True)


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def cache_entries(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir())


# --- a host's own list ------------------------------------------------------------------------------------


def test_custom_list_is_normalised_with_the_build_rule(tmp_path: Path) -> None:
    src = write(tmp_path / "mots.txt", "\ufeffÉté\r\n# a comment\n\n  cœur \ngarçon\nETE\nmaison\n")
    words = load_lexicon(str(src), cache_dir=tmp_path / "cache")
    assert sorted(words) == ["COEUR", "ETE", "GARCON", "MAISON"]
    assert len(words) == 4
    assert words.name == str(src)
    assert words.sha256 == hashlib.sha256(src.read_bytes()).hexdigest()


def test_custom_list_may_be_gzipped(tmp_path: Path) -> None:
    src = tmp_path / "mots.txt.gz"
    src.write_bytes(gzip.compress(b"chat\nchien\n"))
    assert sorted(load_lexicon(str(src), cache_dir=tmp_path / "c")) == ["CHAT", "CHIEN"]


def test_lines_that_cannot_be_normalised_are_all_named_by_number(tmp_path: Path) -> None:
    src = tmp_path / "bad.txt"
    src.write_bytes(b"chat\nporte-monnaie\nchien\naujourd'hui\n1er\nx\n\xff\xfe\nmaison\n")
    with pytest.raises(LexiconError) as caught:
        load_lexicon(str(src), cache_dir=tmp_path / "cache")
    err = caught.value
    assert err.code == "lexicon_bad_lines"
    assert err.lines == [2, 4, 5, 6, 7]
    assert err.params["lines"] == "2,4,5,6,7"
    for number in (2, 4, 5, 6, 7):
        assert f"line {number} " in err.message
    assert "porte-monnaie" in err.message
    assert not (tmp_path / "cache").exists()  # nothing cached for a rejected list


def test_long_error_lists_keep_every_line_number_but_a_short_message(tmp_path: Path) -> None:
    src = write(tmp_path / "bad.txt", "".join(f"mot-{i}\n" for i in range(100)))
    with pytest.raises(LexiconError) as caught:
        load_lexicon(str(src), cache_dir=tmp_path)
    assert caught.value.lines == list(range(1, 101))
    assert "and 80 more" in caught.value.message


def test_a_list_without_words_is_an_error(tmp_path: Path) -> None:
    src = write(tmp_path / "empty.txt", "# nothing\n\n")
    with pytest.raises(LexiconError) as caught:
        load_lexicon(str(src), cache_dir=tmp_path)
    assert caught.value.code == "lexicon_empty"


def test_an_unknown_name_or_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(LexiconError) as caught:
        load_lexicon(str(tmp_path / "nope.txt"), cache_dir=tmp_path)
    assert caught.value.code == "lexicon_not_found"
    assert caught.value.to_dict()["params"] == {"spec": str(tmp_path / "nope.txt")}


def test_broken_gzip_is_an_error(tmp_path: Path) -> None:
    src = tmp_path / "broken.gz"
    data = gzip.compress(b"chat\n" * 100)
    src.write_bytes(data[: len(data) - 6])  # truncated inside the trailer
    with pytest.raises(LexiconError) as caught:
        load_lexicon(str(src), cache_dir=tmp_path / "c")
    assert caught.value.code == "lexicon_unreadable"


# --- the cache --------------------------------------------------------------------------------------------


def test_first_load_caches_the_dawg_keyed_by_the_source_sha256(tmp_path: Path) -> None:
    src = write(tmp_path / "w.txt", "chat\nchien\n")
    cache = tmp_path / "cache"
    load_lexicon(str(src), cache_dir=cache)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    key = f"w.txt-v{CACHE_FORMAT}-{digest}"
    assert cache_entries(cache) == [f"{key}.dawg", f"{key}.json"]
    meta = json.loads((cache / f"{key}.json").read_text())
    assert meta == {"format": CACHE_FORMAT, "sha256": digest, "count": 2}


def test_later_loads_read_the_cache_not_the_source(tmp_path: Path) -> None:
    src = write(tmp_path / "w.txt", "chat\nchien\n")
    cache = tmp_path / "cache"
    load_lexicon(str(src), cache_dir=cache)
    # Plant a different DAWG under the same key: only a load that trusts the cache can return it.
    (dawg_file,) = cache.glob("*.dawg")
    WordList.from_words(["PLANTE"])._dawg.save(str(dawg_file))
    again = load_lexicon(str(src), cache_dir=cache)
    assert "PLANTE" in again
    assert "CHAT" not in again


def test_cache_is_rebuilt_when_the_source_changes(tmp_path: Path) -> None:
    src = write(tmp_path / "w.txt", "chat\nchien\n")
    cache = tmp_path / "cache"
    first = load_lexicon(str(src), cache_dir=cache)
    write(src, "chat\nchien\nloup\n")
    second = load_lexicon(str(src), cache_dir=cache)
    assert "LOUP" not in first and "LOUP" in second
    assert len(second) == 3
    assert second.sha256 != first.sha256
    # The entry of the old version is gone, the new one is there.
    assert all(second.sha256 in name for name in cache_entries(cache))
    assert len(cache_entries(cache)) == 2


def test_a_corrupt_or_partial_cache_entry_is_rebuilt(tmp_path: Path) -> None:
    src = write(tmp_path / "w.txt", "chat\nchien\n")
    cache = tmp_path / "cache"
    load_lexicon(str(src), cache_dir=cache)
    (dawg_file,) = cache.glob("*.dawg")
    dawg_file.write_bytes(b"garbage")
    assert sorted(load_lexicon(str(src), cache_dir=cache)) == ["CHAT", "CHIEN"]
    (meta_file,) = cache.glob("*.json")
    meta_file.unlink()  # as if the process died between the two renames
    assert sorted(load_lexicon(str(src), cache_dir=cache)) == ["CHAT", "CHIEN"]
    assert len(cache_entries(cache)) == 2


def test_an_unwritable_cache_dir_still_loads_the_list(tmp_path: Path) -> None:
    src = write(tmp_path / "w.txt", "chat\n")
    blocker = write(tmp_path / "not-a-dir", "")  # a file where the cache dir should be
    assert list(load_lexicon(str(src), cache_dir=blocker / "cache")) == ["CHAT"]


def test_cache_dir_defaults_to_the_environment_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEXIO_LEXICON_CACHE", str(tmp_path / "env-cache"))
    load_lexicon(str(write(tmp_path / "w.txt", "chat\n")))
    assert len(cache_entries(tmp_path / "env-cache")) == 2


# --- the Lexicon callable and the word-walking API --------------------------------------------------------


def test_unknown_returns_missing_words_in_order_each_once() -> None:
    words = WordList.from_words(["CHAT", "CHIEN", "MAISON"])
    assert words.unknown(["XQZ", "CHAT", "ABC", "XQZ", "MAISON"]) == ["XQZ", "ABC"]
    assert words(["CHAT"]) == []
    assert words(("ZZ",)) == ["ZZ"]


def test_membership_is_exact_and_never_raises() -> None:
    words = WordList.from_words(["CHAT", "CHATS"])
    assert "CHAT" in words
    assert "chat" not in words  # callers pass normalised words
    assert "CHA" not in words
    assert 42 not in words
    assert None not in words


def test_prefix_queries_walk_the_words_in_order() -> None:
    words = WordList.from_words(["CHAT", "CHATS", "CHIEN", "LOUP"])
    assert list(words.with_prefix("CH")) == ["CHAT", "CHATS", "CHIEN"]
    assert list(words.with_prefix("CHAT")) == ["CHAT", "CHATS"]
    assert words.has_prefix("LO") and not words.has_prefix("LA")
    assert list(words) == ["CHAT", "CHATS", "CHIEN", "LOUP"]


@settings(max_examples=50)
@given(st.sets(WORDS, max_size=40), st.lists(WORDS, max_size=20))
def test_word_list_behaves_as_the_set_it_was_built_from(members: set[str], queries: list[str]) -> None:
    words = WordList.from_words(members)
    assert len(words) == len(members)
    assert list(words) == sorted(members)
    assert all((q in words) == (q in members) for q in queries)
    assert words.unknown(queries) == list(dict.fromkeys(q for q in queries if q not in members))


def test_repr_names_the_list_without_showing_words() -> None:
    text = repr(WordList.from_words(["SECRET", "MOTS"], name="mine"))
    assert "mine" in text and "SECRET" not in text and "MOTS" not in text


def test_loader_module_has_no_network_code() -> None:
    # The list never leaves the server: the loader is a library that cannot talk to anything.
    tree = ast.parse(Path(relay.lexicon.__file__).read_text("utf-8"))
    imported = {
        name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""])
    }
    network = {"socket", "http", "urllib", "aiohttp", "asyncio", "ssl", "smtplib", "ftplib", "requests"}
    assert imported & network == set()
