"""What a newcomer sees in the first hour: summary rows that mean what they say, no noise they cannot act on."""

import logging

import textattack

from test_second_order import SYNONYMS, TABLE, Planted, TableProposer, fragile_at_film
from textattack_secondorder.attack_recipes import SOBeam, SOEnum
from textattack_secondorder.metrics.second_order import PERPLEXITY_ROW, VictimAccuracy, second_order_summary_metrics
from textattack_secondorder.sweeps.merge import write_cell


class Records(logging.Handler):
    def __init__(self, logger):
        super().__init__(logging.DEBUG)
        self.records = []
        self.logger = logging.getLogger(logger) if isinstance(logger, str) else logger

    def emit(self, record):
        self.records.append(record.getMessage())

    def __enter__(self):
        self.logger.addHandler(self)
        return self.records

    def __exit__(self, *exc):
        self.logger.removeHandler(self)


# The planted victim says positive iff "good" (or "fine") is in the sentence: right on 2 of the
# 4 sentences it scores. "nothing here" has no patch word pair, so the attack skips it (TextAttack's
# "Original accuracy" would then read 3/4 = 75 %, the share of rows not skipped).
ROWS = [
    ("a good movie", 1),  # right; vulnerable one word away
    ("a good film", 0),  # wrong; the original itself is vulnerable (good -> fine flips it): 0 words changed
    ("good stuff", 0),  # wrong; no neighbour to try: failed
    ("nothing here", 0),  # right; skipped: no patch word pair
]


def attack_rows(recipe=SOBeam, **params):
    attack = recipe.build(
        Planted(fragile_at_film),
        synonyms=SYNONYMS,
        masked_lm=TableProposer(TABLE),
        perplexity=False,
        patch_rule="paper",
        neighbor_rule="paper",
        **params,
    )
    args = textattack.AttackArgs(num_examples=len(ROWS), disable_stdout=True, silent=True)
    return attack, textattack.Attacker(attack, textattack.datasets.Dataset(ROWS), args).attack_dataset()


def test_original_accuracy_is_the_victims_accuracy_on_the_attacked_sentences(tmp_path):
    attack, results = attack_rows()
    assert [type(r).__name__ for r in results] == [
        "SuccessfulAttackResult",
        "SuccessfulAttackResult",
        "FailedAttackResult",
        "SkippedAttackResult",
    ]
    assert results[1].perturbed_result.perturbed_words == 0
    rows = write_cell(results, attack, tmp_path / "log.csv")
    assert rows["Original accuracy"] == "50.0%"
    # failed / all rows: the sentences where no vulnerable example was found, named for what it counts
    assert rows["No vulnerable example found"] == "25.0%"
    assert "Accuracy under attack" not in rows
    assert rows["Attack success rate"] == "66.67%"
    assert rows["Number of skipped attacks"] == 1


def test_victim_accuracy_leaves_out_rows_the_model_never_scored():
    _, results = attack_rows(SOEnum)
    assert VictimAccuracy().calculate(results) == "50.0%"
    assert VictimAccuracy().calculate([]) == "n/a"


def test_stock_recipes_keep_textattacks_summary(tmp_path):
    import numpy as np
    from textattack.attack_results import SkippedAttackResult
    from textattack.goal_function_results import ClassificationGoalFunctionResult, GoalFunctionResultStatus
    from textattack.shared import AttackedText

    # TextAttack's own meaning: a skipped row is one the victim already got wrong.
    r = SkippedAttackResult(
        ClassificationGoalFunctionResult(
            AttackedText("a b"), np.array([0.9, 0.1]), 0, GoalFunctionResultStatus.SKIPPED, 1.0, 1, 1
        )
    )
    rows = write_cell([r], None, tmp_path / "log.csv")
    assert rows["Original accuracy"] == "0.0%" and "Accuracy under attack" in rows


def test_perplexity_rows_absent_say_why_and_how(monkeypatch, tmp_path):
    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rows = second_order_summary_metrics()  # the causal LM is not cached here
    assert "Median perplexity (original, successful rows):" not in rows
    message = rows[PERPLEXITY_ROW].calculate([])
    assert "not cached" in message and "perplexity=True" in message and "one-off" in message
    # asked for explicitly: the rows, or nothing when switched off
    assert PERPLEXITY_ROW not in second_order_summary_metrics(perplexity=False)
    assert "Median perplexity (vulnerable, successful rows):" in second_order_summary_metrics(perplexity=True)
    assert PERPLEXITY_ROW not in second_order_summary_metrics(perplexity=True)


def write_big_vocab_tokenizer(folder):
    """A word-level tokenizer of 100,001 entries with a " " split, saved as transformers saves the cached
    Gemma (with a config.json it wrote): what its Mistral-regex check looks at (> 100,000 entries)."""
    import json

    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"<unk>": 0, "a": 1, "good": 2, "movie": 3}
    vocab.update({f"w{i}": i for i in range(len(vocab), 100_001)})
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Split(" ", behavior="removed")
    PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>").save_pretrained(str(folder))
    (folder / "config.json").write_text(
        json.dumps({"model_type": "gemma3_text", "transformers_version": transformers.__version__})
    )
    return folder


def test_gemma_tokenizer_loads_without_the_mistral_regex_warning(tmp_path):
    from transformers import AutoTokenizer
    from transformers.tokenization_utils_base import PreTrainedTokenizerBase

    from textattack_secondorder.resources.gemma import load_gemma_tokenizer

    folder = write_big_vocab_tokenizer(tmp_path / "tok")
    with Records("transformers") as said:
        plain = AutoTokenizer.from_pretrained(str(folder))
    if hasattr(PreTrainedTokenizerBase, "_patch_mistral_regex") and transformers_major() < 5:
        assert [m for m in said if "fix_mistral_regex" in m], "the check this test is about did not run"
    with Records("transformers") as said:
        tok = load_gemma_tokenizer(folder)
    assert not [m for m in said if "fix_mistral_regex" in m or "incorrect regex" in m]
    # the same tokenizer as a plain load: the flag only says "not a Mistral tokenizer"
    assert tok.tokenize("a good movie") == plain.tokenize("a good movie") == ["a", "good", "movie"]
    assert tok.backend_tokenizer.pre_tokenizer.__getstate__() == plain.backend_tokenizer.pre_tokenizer.__getstate__()


def transformers_major():
    import transformers

    return int(transformers.__version__.split(".")[0])


def test_textattack_knows_our_goal_function_and_victims():
    from textattack.goal_functions import UntargetedClassification
    from textattack.shared import logger
    from textattack.shared.validators import validate_model_goal_function_compatibility
    from transformers import BertForSequenceClassification

    from textattack_secondorder.goal_functions.second_order import SecondOrderClassification
    from textattack_secondorder.models.word_models import SOWordCNNForSequenceClassification

    with Records(logger) as said:
        for goal in (SecondOrderClassification, UntargetedClassification):
            for model in (SOWordCNNForSequenceClassification, BertForSequenceClassification):
                validate_model_goal_function_compatibility(goal, model)
    assert not [m for m in said if "No entry found" in m or "Unknown if model" in m]


def test_textattacks_first_run_nltk_downloads_stay_off_the_console(monkeypatch, capfd):
    import sys

    import nltk

    from textattack_secondorder.plugin import hook

    def offline_download(info_or_id=None, *args, **kwargs):
        print(f"[nltk_data] Error loading {info_or_id}: <urlopen error [Errno -3]>", file=sys.stderr)
        return False

    monkeypatch.setattr(nltk, "download", offline_download)
    hook.quiet_nltk_downloads()
    for name in ("averaged_perceptron_tagger", "stopwords", "omw", "universal_tagset", "wordnet", "punkt"):
        nltk.download(name)  # what TextAttack's first import does
    with Records("textattack_secondorder") as said:
        hook.report_nltk_downloads()
    assert nltk.download is offline_download
    out, err = capfd.readouterr()
    assert "[nltk_data]" not in out + err
    assert len(said) == 1
    assert "averaged_perceptron_tagger, omw, universal_tagset, wordnet, punkt" in said[0]
    assert "stopwords" not in said[0]  # shipped with this package
