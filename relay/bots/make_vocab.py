"""Write ``relay/bots/common_fr.txt.gz``: the French words people use most, most frequent first.

The lower bot levels play only words from the top of this list (a vocabulary a person would recognise).
Source: the ``wordfreq`` package (pinned in pyproject's ``bots-data`` extra; code Apache-2.0, word lists
CC BY-SA 4.0 — Robyn Speer et al., https://doi.org/10.5281/zenodo.7199437), French ``large`` list. Each word
is written as the game spells it (upper case, accents dropped, ``ligatures`` split, as
:func:`relay.lexicon.normalise` does) and kept only if it is in the shipped word list; duplicates after
normalisation keep their best rank. The relay reads the shipped file and never needs wordfreq.

Usage: .venv/bin/pip install '.[bots-data]' && .venv/bin/python -m relay.bots.make_vocab [--top 40000]
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

from relay.bots.vocab import VOCAB_FILE
from relay.lexicon import load_lexicon, normalise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=40_000, help="words to keep")
    parser.add_argument("--out", type=Path, default=VOCAB_FILE)
    args = parser.parse_args(argv)
    import wordfreq  # only this script needs it

    lexicon = load_lexicon("fr")
    seen: set[str] = set()
    kept: list[str] = []
    for raw in wordfreq.iter_wordlist("fr", "large"):
        word = normalise(raw)
        if word is None or len(word) < 2 or word in seen or word not in lexicon:
            continue
        seen.add(word)
        kept.append(word)
        if len(kept) >= args.top:
            break
    header = "# wordfreq 3.1.1, French 'large' list, CC BY-SA 4.0 (Robyn Speer et al.); most frequent first\n"
    with gzip.GzipFile(args.out, "wb", mtime=0) as out:
        out.write((header + "\n".join(kept) + "\n").encode())
    print(f"# {len(kept)} words -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
