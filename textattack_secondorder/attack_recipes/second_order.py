"""
Double perturbation: SO-Beam, SO-Enum and the random baseline
=============================================================

Zhang, C., Zhao, J., Zhang, H., Chang, K.-W., Hsieh, C.-J. (2021).
"Double Perturbation: On the Robustness of Robustness and Counterfactual Bias
Evaluation." NAACL 2021. https://arxiv.org/abs/2104.05232

A model can be robust on a test sentence ``x0`` (the synonym swap ``p`` does not
change its prediction) and fragile on a natural sentence ``x̃0`` a word or two
away. These recipes search the masked-LM neighbourhood of ``x0`` for a
*vulnerable example*: ``f(x̃0 ⊕ p) != f(x̃0)``.

    textattack attack --recipe so-beam --model-from-file recipes/models/mr_cnn.py \\
        --dataset-from-file "recipes/datasets/mr.py^dataset" --num-examples 50
    textattack attack --recipe "so-beam^beam_width=10,max_depth=4" ...

From Python: ``SOBeam.build(model_wrapper, beam_width=10)`` with ``textattack.Attacker``.
"""

from textattack import Attack

from ..constraints import PatchWordModification, PatchWordsUnique
from ..goal_functions.second_order import SecondOrderClassification
from ..metrics.second_order import second_order_summary_metrics
from ..transformations.neighborhood import DELTA, KAPPA, WordSwapNeighborhood
from .recipe import SORecipe


class SecondOrderAttack(Attack):
    """An ``Attack`` whose search can batch the neighbourhood proposals of a whole step.

    Also carries ``summary_metrics`` (rows our extension adds to TextAttack's summary table).
    """

    def __init__(self, goal_function, constraints, transformation, search_method, summary_metrics=None):
        super().__init__(goal_function, constraints, transformation, search_method)
        if hasattr(transformation, "prefetch"):
            search_method.prefetch_transformations = transformation.prefetch
        self.summary_metrics = summary_metrics or {}

    def clear_cache(self, recursive=True):
        super().clear_cache(recursive)
        if hasattr(self.transformation, "clear_cache"):
            self.transformation.clear_cache()


# Parameters shared by the three recipes (defaults: paper §3 / Algorithm 1).
COMMON_PARAMS = {
    "synonyms": (
        None,
        "word->synonyms JSON for patch words; None = synonyms slot (counter-fitted online, "
        "the packaged copy of that list offline). Paper: counter-fitted synonyms (Jia et al. 2019)",
    ),
    "masked_lm": (
        None,
        "masked-LM slot: HF model name/path, 'gemma', 'minilm-mlm' or a WordProposer; "
        "None = slot default. Paper: distilbert-base-uncased",
    ),
    "kappa": (KAPPA, "Algorithm 1: keep logits > max(L[kappa], L[0] - delta); paper kappa = 20"),
    "delta": (DELTA, "Algorithm 1: paper delta = 3"),
    "perplexity": (
        None,
        "median causal-LM perplexity of originals / vulnerable examples in the summary: True, "
        "False, or None = on when the causal LM is already cached here (no one-off load)",
    ),
    "causal_lm": (None, "causal-LM slot for perplexity (None = gpt2 online, gemma offline)"),
    "device": (None, "device of the word proposer (None = TextAttack's default device)"),
    "masked_lm_dtype": (
        None,
        "weights dtype of the masked LM when loaded here: None = float32 (exact), 'bfloat16' "
        "(CPU with native bf16: 2.8x faster, 96.9 % of neighbours kept), 'float16' (CUDA), "
        "'auto'",
    ),
}


class SecondOrderRecipe(SORecipe):
    """Shared build of SO-Beam, SO-Enum and SO-Random: only the search method differs (``_search``)."""

    @classmethod
    def _search(cls, p):
        raise NotImplementedError

    @classmethod
    def _build(cls, model_wrapper, **p):
        from ..resources import load_synonyms

        synonyms = load_synonyms(p["synonyms"])
        # "Every candidate costs two model outputs (x and x ⊕ p)" -> query budget counts both.
        goal_function = SecondOrderClassification(model_wrapper, synonyms, query_budget=p["query_budget"])
        transformation = WordSwapNeighborhood(
            p["masked_lm"], kappa=p["kappa"], delta=p["delta"], device=p["device"], dtype=p["masked_lm_dtype"]
        )
        # "The positions holding the patch word are never modified."
        constraints = [PatchWordModification(goal_function), PatchWordsUnique(goal_function)]
        metrics = second_order_summary_metrics(p["perplexity"], p["causal_lm"], p["device"])
        return SecondOrderAttack(goal_function, constraints, transformation, cls._search(p), metrics)
