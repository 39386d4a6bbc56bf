"""A user's own Hugging Face classifier is queried padded per batch, however it was given (docs/design/speed.md).

TextAttack's ``HuggingFaceModelWrapper`` pads every query to the tokenizer's ``model_max_length`` (512); our
recipes and commands swap it for ``SOModelWrapper`` (same model, same logits, each batch padded to its
longest input). A model that cannot be loaded is one line, exit code 2.
"""

import json

import pytest
import torch

from conftest import bert_tokenizer, stock_textattack

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + (
    "the a film movie is was good bad great dull acting plot story jokes are genuinely clever "
    "and but not very quite funny boring superb thin ending predictable director handles"
).split()
SENTENCES = [
    "the film is good",
    "the acting was superb and the plot was not dull",
    "jokes",
    "the director handles the story but the ending is predictable and the jokes are very thin",
]


def tiny_classifier(kind):
    """A seeded tiny random sequence classifier of the family ``kind`` with a 512-token tokenizer."""
    import transformers as tf

    torch.manual_seed(0)
    small = dict(vocab_size=len(VOCAB), num_labels=2, pad_token_id=0, max_position_embeddings=520)
    if kind == "bert":
        config = tf.BertConfig(
            hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, **small
        )
        model = tf.BertForSequenceClassification(config)
    elif kind == "minilm":  # all-MiniLM-L6-v2's shape (a BERT of 6 layers, 12 heads), scaled down
        config = tf.BertConfig(
            hidden_size=24, num_hidden_layers=6, num_attention_heads=12, intermediate_size=48, **small
        )
        model = tf.BertForSequenceClassification(config)
    elif kind == "distilbert":
        config = tf.DistilBertConfig(dim=16, n_layers=1, n_heads=2, hidden_dim=32, **small)
        model = tf.DistilBertForSequenceClassification(config)
    elif kind == "roberta":
        config = tf.RobertaConfig(
            hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, **small
        )
        model = tf.RobertaForSequenceClassification(config)
    else:
        raise ValueError(kind)
    # DistilBERT's tokenizers give no token type ids (its forward takes none)
    inputs = ["input_ids", "attention_mask"] + ([] if kind == "distilbert" else ["token_type_ids"])
    return model.eval(), bert_tokenizer(VOCAB, model_max_length=512, model_input_names=inputs)


def textattack_wrapper(kind):
    from textattack.models.wrappers import HuggingFaceModelWrapper

    return HuggingFaceModelWrapper(*tiny_classifier(kind))


def sequence_lengths(model):
    """Record the padded length of every forward of ``model``."""
    seen = []
    model.register_forward_pre_hook(lambda m, args, kwargs: seen.append(kwargs["input_ids"].shape[1]), with_kwargs=True)
    return seen


@pytest.mark.parametrize("kind", ["bert", "distilbert", "roberta", "minilm"])
def test_fast_wrapper_gives_textattacks_logits(kind):
    from textattack_secondorder.models.wrappers import SOModelWrapper, fast_model_wrapper

    theirs = textattack_wrapper(kind)
    expected = theirs(SENTENCES)
    ours = fast_model_wrapper(theirs)
    assert isinstance(ours, SOModelWrapper) and ours.model is theirs.model
    assert torch.allclose(ours(SENTENCES), expected, atol=1e-5, rtol=0)


def test_fast_wrapper_pads_to_the_longest_input_not_512(monkeypatch):
    from textattack_secondorder.models.onnx_forward import RUNTIME_ENV
    from textattack_secondorder.models.wrappers import fast_model_wrapper

    monkeypatch.setenv(RUNTIME_ENV, "torch")  # torch's forwards are what the hook sees (onnxruntime's: same inputs)
    theirs = textattack_wrapper("bert")
    seen = sequence_lengths(theirs.model)
    theirs(SENTENCES)
    fast_model_wrapper(theirs)(SENTENCES)
    longest = max(len(theirs.tokenizer(s)["input_ids"]) for s in SENTENCES)
    assert seen == [512, longest]
    monkeypatch.delenv(RUNTIME_ENV)
    assert fast_model_wrapper(theirs).encode(SENTENCES)["input_ids"].shape[1] == longest


def test_other_wrappers_are_left_alone(monkeypatch):
    from textattack.models.wrappers import HuggingFaceModelWrapper

    from textattack_secondorder.models.wrappers import KEEP_ENV, SOModelWrapper, fast_model_wrapper

    class Custom(HuggingFaceModelWrapper):
        def __call__(self, texts):
            return super().__call__(texts) * 2

    custom = Custom(*tiny_classifier("bert"))
    assert fast_model_wrapper(custom) is custom
    ours = SOModelWrapper(*tiny_classifier("bert"))
    assert fast_model_wrapper(ours) is ours
    monkeypatch.setenv(KEEP_ENV, "1")
    theirs = textattack_wrapper("bert")
    assert fast_model_wrapper(theirs) is theirs


def test_our_recipes_build_on_the_fast_wrapper():
    """Every recipe's ``build`` (from the stock CLI's ``eval`` or from Python) swaps TextAttack's wrapper first."""
    from textattack_secondorder.attack_recipes import RECIPES, SORecipe
    from textattack_secondorder.models.wrappers import SOModelWrapper

    class Echo(SORecipe):
        name = "echo"

        @classmethod
        def build(cls, model_wrapper, **params):
            return model_wrapper, params

    got, params = Echo.build(textattack_wrapper("bert"), x=1)
    assert isinstance(got, SOModelWrapper) and params == {"x": 1}
    for recipe in RECIPES:
        assert recipe.build.__func__.__wrapped__ is recipe.__dict__["build"].__func__.__wrapped__


def save_classifier(folder, kind="bert"):
    model, tok = tiny_classifier(kind)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def test_stock_cli_attacks_a_hf_folder_with_the_fast_wrapper(tmp_path, capfd, caplog):
    """``textattack attack --recipe <ours> --model-from-huggingface DIR``: the victim sees batches padded to
    their longest input, and the run says which wrapper it used."""
    from textattack_secondorder.evaluation.flip_capability import FlipCapability, FlipCapabilityResult

    folder = save_classifier(tmp_path / "clf")
    kappa = FlipCapabilityResult(FlipCapability(["bad", "dull"], 2).update([0], 1)).save(tmp_path / "kappa.json")
    # labels the model gets wrong: rows skipped before the search (no sentence encoder or causal LM to load)
    wrong = [(s, 1 - int(p.argmax())) for s, p in zip(SENTENCES[:2], textattack_wrapper("bert")(SENTENCES[:2]))]
    data = tmp_path / "data.py"
    data.write_text(f"import textattack\ndataset = textattack.datasets.Dataset({wrong!r})\n")
    code, out, err = stock_textattack(
        capfd,
        "attack",
        "--recipe",
        # no training data to read the label lean from (tests/test_fluency_rule.py): the paper's rules
        f"sp-attack^kappa='{kappa}',label_rule='paper',fluency_rule='paper'",
        "--model-from-huggingface",
        folder,
        "--dataset-from-file",
        data,
        "--num-examples",
        "2",
    )
    assert code == 0, err[-2000:]
    said = err + caplog.text  # a log warning (pytest keeps log records off stderr)
    assert "recipe 'sp-attack' queries BertForSequenceClassification padded to each batch's longest input" in said
    assert "pads every query to 512 tokens" in said


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda d: d / "nowhere", "not found"),
        (lambda d: (d / "empty").mkdir() or d / "empty", "has no config.json"),
        (lambda d: save_headless(d / "base"), "without a sequence-classification head"),
        (lambda d: save_without_tokenizer(d / "notok"), "has no tokenizer files"),
        (lambda d: "someone/some-model", "hub cannot be reached"),
    ],
    ids=["missing", "no-config", "no-head", "no-tokenizer", "hub-offline"],
)
def test_a_model_that_cannot_load_is_one_line(tmp_path, capfd, make, says):
    spec = make(tmp_path)
    data = tmp_path / "data.py"
    data.write_text("import textattack\ndataset = textattack.datasets.Dataset([('the film is good', 1)])\n")
    code, out, err = stock_textattack(
        capfd, "attack", "--recipe", "so-beam", "--model-from-huggingface", spec, "--dataset-from-file", data
    )
    assert code == 2, err[-2000:]
    assert "Traceback" not in err
    line = [x for x in err.splitlines() if "error:" in x]
    assert len(line) == 1 and says in line[0] and str(spec) in line[0]

    from textattack_secondorder.models.loading import ModelLoadError, load_model_wrapper

    with pytest.raises(ModelLoadError, match=says):
        load_model_wrapper(str(spec))


def save_headless(folder):
    from transformers import BertConfig, BertModel

    BertModel(
        BertConfig(vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=1, num_attention_heads=2)
    ).save_pretrained(folder)
    bert_tokenizer(VOCAB).save_pretrained(folder)
    return folder


def save_without_tokenizer(folder):
    tiny_classifier("bert")[0].save_pretrained(folder)
    assert json.loads((folder / "config.json").read_text())["architectures"] == ["BertForSequenceClassification"]
    return folder


def test_stock_cli_loads_a_demo_victim_by_name(monkeypatch):
    """``--model mr-cnn`` in the stock CLI is the demo victim (its folder, trained on first use)."""
    import textattack

    from textattack_secondorder.models import victims

    asked = []
    monkeypatch.setattr(victims, "victim_dir", lambda name: asked.append(name) or "/no/such/victim")
    args = textattack.ModelArgs(model="mr-cnn")
    with pytest.raises(Exception):  # noqa: B017 - the stand-in folder does not exist; the name was looked up
        textattack.ModelArgs._create_model_from_args(args)
    assert asked == ["mr-cnn"] and args.model == "/no/such/victim"
