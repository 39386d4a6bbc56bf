"""Shared command-line arguments: the victim model and the texts, named the way TextAttack users name them."""
from ..datasets.examples import DATASET_SPEC_HELP as DATASET_HELP
from ..models.loading import MODEL_SPEC_HELP as MODEL_HELP


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
