"""Probe sets for Hebrew word matching: copied sentences, and the same with a word swapped in.

    python -m grounding_lab.hebrew_probes ../shared/data/hebrew/dev_hebrew.jsonl OUT.jsonl

A reviewer's commonest Hebrew hallucination to catch is a sentence copied from a source
with one name or word exchanged for another from the same paragraph: every word of the
claim is in the evidence, so counting words says "supported". From dev_hebrew's
premises this builds a paragraph (a premise and the next two), and for each premise two
claims: the premise copied (label 1) and the premise with one content word replaced by
a content word of the paragraph's other sentences (label 0). Hebrew has no capitals to
find names by, so any content word stands in for the entity; the set is a proxy for the
private entity-swap check, scored like the dev files (`grounding_eval`, `report_halves`).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from grounding_app.engine import profile
from grounding_app.formats.grounding_jsonl import Example, read_examples

HEBREW = profile("he")
MIN_WORDS = 6
PARAGRAPH = 3


def _content(sentence: str) -> list[str]:
    return [w for w in HEBREW.content_words(sentence) if len(w) >= 3]


def probes(examples: Iterable[Example], seed: int = 13) -> list[dict[str, object]]:
    """Copied and swapped claims over paragraphs of consecutive distinct premises."""
    premises = list(
        dict.fromkeys(
            e.facts[0].text.strip()
            for e in examples
            if e.facts and len(HEBREW.words(e.facts[0].text)) >= MIN_WORDS
        )
    )
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for start in range(0, len(premises) - PARAGRAPH + 1, PARAGRAPH):
        paragraph = premises[start : start + PARAGRAPH]
        text = " ".join(paragraph)
        for k, sentence in enumerate(paragraph):
            others = [w for j, s in enumerate(paragraph) if j != k for w in _content(s)]
            own = set(HEBREW.words(sentence))
            donors = sorted({w for w in others if w not in own})
            targets = [w for w in _content(sentence) if w in sentence]
            if not donors or not targets:
                continue
            target = rng.choice(targets)
            donor = rng.choice(donors)
            words = sentence.split(" ")
            at = next((i for i, w in enumerate(words) if target in HEBREW.words(w)), None)
            if at is None:
                continue
            words[at] = words[at].replace(target, donor, 1)
            swapped = " ".join(words)
            base = f"{start + k}"
            facts = [{"text": text}]
            meta = {"paragraph": start // PARAGRAPH, "target": target, "donor": donor}
            out.append(
                {
                    "id": f"he-copy-{base}",
                    "source": "he_copy_swap",
                    "facts": facts,
                    "claim": sentence,
                    "label": 1,
                    "meta": meta,
                }
            )
            out.append(
                {
                    "id": f"he-swap-{base}",
                    "source": "he_copy_swap",
                    "facts": facts,
                    "claim": swapped,
                    "label": 0,
                    "meta": meta,
                }
            )
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    rows = probes(read_examples(args.data), args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    print(f"{len(rows)} probes ({len(rows) // 2} paragraphs' sentences) -> {args.out}")


if __name__ == "__main__":
    main()
