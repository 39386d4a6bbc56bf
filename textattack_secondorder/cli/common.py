"""Shared command-line helpers: load a victim model and texts the way TextAttack users name them."""
import os

MODEL_HELP = (
    "victim: a demo victim name (mr-cnn, mr-lstm, mr-bow, mr-minilm), a local Hugging Face model directory, "
    "a hub model id (online), or a Python file defining `model` (a TextAttack ModelWrapper), as `file.py` "
    "or `file.py^variable`"
)
DATASET_HELP = "texts: 'mr' (movie-review sentences), a CSV file (see --text-column) or a text file, one per line"


def add_model_args(parser):
    parser.add_argument("--model", required=True, help=MODEL_HELP)
    parser.add_argument("--device", default=None, help="cpu, cuda, cuda:1 ... (default: TextAttack's device)")
    parser.add_argument("--model-batch-size", type=int, default=64, help="texts per model call")


def add_dataset_args(parser, default_split="test"):
    parser.add_argument("--dataset", default="mr", help=DATASET_HELP)
    parser.add_argument("--split", default=default_split, help="split of a named dataset (train/test)")
    parser.add_argument("--text-column", default="text", help="CSV column holding the text")
    parser.add_argument("--label-column", default="label", help="CSV column holding the label")
    parser.add_argument("--num-examples", type=int, default=None, help="use the first N examples")


def load_model(spec, device=None, batch_size=64):
    """A TextAttack ``ModelWrapper`` for ``spec`` (see ``MODEL_HELP``)."""
    from ..models import load_victim

    if not spec:
        raise ValueError("no model given")
    path, _, var = spec.partition("^")
    if path.endswith(".py"):
        if not os.path.exists(path):
            raise FileNotFoundError(f"model file {path!r} not found")
        from textattack.shared.utils import load_module_from_file

        module = load_module_from_file(path)
        name = var or "model"
        if not hasattr(module, name):
            raise ValueError(f"{path} defines no variable {name!r} (a TextAttack ModelWrapper)")
        return getattr(module, name)
    from ..models import VICTIMS

    if spec in VICTIMS:
        return load_victim(spec, device=device, batch_size=batch_size)
    if not os.path.isdir(spec) and spec.startswith("mr-"):
        raise ValueError(f"unknown demo victim {spec!r}; valid: {', '.join(VICTIMS)}")
    # a local Hugging Face directory (our saved victims included) or, online, a hub model id
    from ..models.victims import load_model_and_tokenizer
    from ..models.wrappers import SOModelWrapper

    model, tokenizer = load_model_and_tokenizer(spec)
    return SOModelWrapper(model, tokenizer, device=device, batch_size=batch_size)


def load_examples(spec, split="test", text_column="text", label_column="label", limit=None):
    """List of ``(text, label)``; label is ``None`` for plain text files."""
    if spec == "mr":
        from ..datasets.mr import load_mr

        data = load_mr(split)
    elif spec.endswith(".csv"):
        import pandas as pd

        df = pd.read_csv(spec, keep_default_na=False)
        if text_column not in df.columns:
            raise ValueError(f"{spec} has no column {text_column!r}; columns: {', '.join(df.columns)}")
        labels = df[label_column].tolist() if label_column in df.columns else [None] * len(df)
        data = list(zip(df[text_column].astype(str).tolist(), labels))
    elif os.path.exists(spec):
        with open(spec, encoding="utf-8") as f:
            data = [(line.rstrip("\n"), None) for line in f if line.strip()]
    else:
        raise ValueError(f"Unknown dataset {spec!r}: use 'mr', a CSV file or a text file")
    return data[:limit] if limit else data
