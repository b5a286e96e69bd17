"""Train the long-reading verifier with sentence-transformers (CrossEncoder + trainer).

    python -m grounding_lab.train_long_verifier --out var/verifier-v3

Starts from the shipped verifier's weights (a MiniLM cross-encoder already trained on
claim/evidence pairs at 128 tokens) and goes on at `--max-length` tokens on evidence
windows (`windows.py`), weighted towards the document-level sources of real use.
Checkpoints every `--save-steps` into OUT/checkpoints (a rerun resumes from the last);
the finished model is written to OUT/model with the dev_realistic pairs' AUC in the log.
Needs the `train` extra (`pip install -e '.[train]'`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grounding_app.verifiers.adapt.windows import TrainPair

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "grounding"

logger = logging.getLogger("train_long_verifier")


def _init_model(directory: Path, source: Path) -> None:
    """A Hugging Face directory holding the shipped verifier: config, tokenizer, weights."""
    from grounding_app.engine import load_model, load_tokenizer

    model = load_model(source / "model.safetensors")
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(directory))
    load_tokenizer().save_pretrained(str(directory))


def _dataset(pairs: Sequence[TrainPair]):
    from datasets import Dataset

    return Dataset.from_dict(
        {
            "claim": [p.claim for p in pairs],
            "evidence": [p.evidence for p in pairs],
            "label": [float(p.label) for p in pairs],
        }
    )


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=Path, default=DATA / "train.jsonl")
    parser.add_argument("--dev", type=Path, default=DATA / "dev_realistic.jsonl")
    parser.add_argument("--out", type=Path, default=Path("var/verifier-v3"))
    parser.add_argument("--start", type=Path, default=None, help="verifier dir to start from")
    parser.add_argument("--max-length", type=int, default=384)
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--save-steps", type=int, default=100)
    parser.add_argument("--limit", type=int, default=0, help="train on at most N pairs")
    parser.add_argument(
        "--skip", type=int, default=0, help="leave out the first N pairs (a previous run's)"
    )
    parser.add_argument(
        "--bf16", action="store_true", help="bfloat16 autocast on the CPU (AMX: ~30%% faster)"
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--dev-limit", type=int, default=600)
    parser.add_argument(
        "--padded", type=float, default=0.25, help="share also read among unrelated text"
    )
    return parser.parse_args(argv)


def _log_to(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    log_file = logging.FileHandler(out / "train.log")
    log_file.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logging.getLogger().addHandler(log_file)
    logging.getLogger().setLevel(logging.INFO)


def _pairs(args: argparse.Namespace) -> tuple[list[TrainPair], list[TrainPair]]:
    """Train windows (after `--skip`, at most `--limit`) and dev's original pairs."""
    from grounding_app.engine import load_tokenizer
    from grounding_app.formats.grounding_jsonl import read_examples
    from grounding_app.verifiers.adapt import windows

    tokenizer = load_tokenizer()

    def count_tokens(text: str) -> int:
        return len(tokenizer.tokenize(text))

    # Room for the claim (at most 64 tokens) and the three special tokens.
    budget = args.max_length - 67
    pairs = windows.build_pairs(
        read_examples(args.train), count_tokens, budget, args.seed, padded=args.padded
    )
    pairs = pairs[args.skip :]
    if args.limit:
        pairs = pairs[: args.limit]
    dev_examples = list(read_examples(args.dev))
    random.Random(args.seed).shuffle(dev_examples)
    dev_pairs = windows.build_pairs(
        dev_examples[: args.dev_limit], count_tokens, budget, args.seed, per_source={}
    )
    dev_pairs = [p for p in dev_pairs if p.kind == "original"]
    logger.info(
        "pairs: %d train (%d supported), %d dev; kinds %s",
        len(pairs),
        sum(p.label for p in pairs),
        len(dev_pairs),
        json.dumps(windows.kinds(pairs)),
    )
    return pairs, dev_pairs


def _training_arguments(args: argparse.Namespace) -> Any:
    import torch
    from sentence_transformers.cross_encoder import CrossEncoderTrainingArguments

    return CrossEncoderTrainingArguments(
        output_dir=str(args.out / "checkpoints"),
        num_train_epochs=args.epochs,
        per_device_train_batch_size=args.batch_size,
        learning_rate=args.lr,
        warmup_steps=0.05,  # a float: the share of all steps (Transformers 5)
        weight_decay=0.01,
        save_strategy="steps",
        save_steps=args.save_steps,
        save_total_limit=2,
        eval_strategy="steps",
        eval_steps=args.save_steps * 4,
        logging_steps=20,
        seed=args.seed,
        dataloader_drop_last=False,
        report_to="none",
        use_cpu=not torch.cuda.is_available(),
        bf16=torch.cuda.is_available() or args.bf16,
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch
    from sentence_transformers.cross_encoder import CrossEncoder, CrossEncoderTrainer
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderClassificationEvaluator
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    from grounding_app.engine import VERIFIER_DIR
    from grounding_app.verifiers.adapt import windows

    _log_to(args.out)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    pairs, dev_pairs = _pairs(args)
    positives = sum(p.label for p in pairs)
    init = args.out / "init"
    if not (init / "config.json").is_file():
        _init_model(init, args.start or VERIFIER_DIR)
    model = CrossEncoder(str(init), num_labels=1, max_length=args.max_length)
    loss = BinaryCrossEntropyLoss(
        model, pos_weight=torch.tensor((len(pairs) - positives) / max(1, positives))
    )
    evaluator = CrossEncoderClassificationEvaluator(
        sentence_pairs=[[p.claim, p.evidence] for p in dev_pairs],
        labels=[p.label for p in dev_pairs],
        name="dev_realistic",
    )
    trainer = CrossEncoderTrainer(
        model=model,
        args=_training_arguments(args),
        train_dataset=_dataset(pairs),
        loss=loss,
        evaluator=evaluator,
    )
    checkpoints = sorted((args.out / "checkpoints").glob("checkpoint-*"))
    trainer.train(resume_from_checkpoint=str(checkpoints[-1]) if checkpoints else None)
    logger.info("final dev_realistic: %s", json.dumps(evaluator(model)))
    model.save_pretrained(str(args.out / "model"))
    (args.out / "model" / "pairs.json").write_text(
        json.dumps({"pairs": len(pairs), "kinds": windows.kinds(pairs)}, indent=1)
    )


if __name__ == "__main__":
    main()
