"""
SO-Beam: beam search for a vulnerable example (double perturbation)
===================================================================

Zhang, C., Zhao, J., Zhang, H., Chang, K.-W., Hsieh, C.-J. (2021). "Double Perturbation: On the
Robustness of Robustness and Counterfactual Bias Evaluation." NAACL 2021, Algorithm 2.
https://arxiv.org/abs/2104.05232 (docs/design/search.md)

    textattack attack --recipe "so-beam^beam_width=10,max_depth=4" --model-from-file recipes/models/mr_cnn.py ...
"""

from ..models.wrappers import transformer_on_cpu
from ..search_methods import SecondOrderBeamSearch
from ..transformations.neighborhood import WordSwapNeighborhood
from .param import Param
from .recipe import SORecipe
from .second_order import COMMON_PARAMS, double_perturbation_goal, search_depth, second_order_attack


class SOBeam(SORecipe):
    """SO-Beam (paper Algorithm 2): beam search over the natural neighbourhood minimising Eq. 4.

    A model can be robust on a test sentence ``x0`` (the synonym swap ``p`` leaves its prediction
    alone) and fragile on a natural sentence ``x̃0`` a few words away: SO-Beam searches the
    masked-LM neighbourhood of ``x0`` for a *vulnerable example*, ``f(x̃0 ⊕ p) != f(x̃0)``.
    """

    name = "so-beam"
    PARAMS = dict(
        COMMON_PARAMS,
        beam_width=Param(20, "Algorithm 2: beam size beta = 20", low=1),
        max_depth=Param(6, "Algorithm 2: at most k = 6 substitutions", low=1),
        expand_chunk=Param(
            1,
            "beam members expanded per batch, best first, stopping at the first chunk with a vulnerable "
            "example (same neighbourhood, success and distance; 0 = whole beam, Algorithm 2's "
            "best-of-step choice; docs/design/speed.md)",
            low=0,
        ),
        neighbor_lm_beam=Param(
            False,
            "natural neighbour rule: also hold the beam's survivors of each step to the causal-LM budget (by "
            "default they pass the part-of-speech check and leave out what the budget already refused); "
            "docs/design/neighbours.md",
        ),
        neighbor_similarity_beam=Param(
            False,
            "natural neighbour rule with neighbor_similarity: also hold the beam's survivors of each step to the word "
            "similarity (by default they leave out only what the check already refused); docs/design/neighbours.md",
        ),
        query_budget=Param(
            50_000,
            "model queries per example, x and x ⊕ p counted separately (reference code: 50,000; on a certified victim "
            "a fifth of the successes need more than 20,000: docs/design/speed.md)",
            low=1,
        ),
        neighbor_pos_first=Param(
            "auto",
            "natural neighbour rule: True checks every neighbour's part of speech before the victim scores it (a "
            "neighbour that fails can neither be reported nor stand in the beam: fewer queries of a costly victim, "
            "but every neighbour tagged); False checks only the vulnerable ones and the beam's survivors, after "
            "scoring; 'auto' (default): True for a transformer victim on the CPU, False for a word model or on a "
            "GPU (docs/design/speed.md)",
            choices=("auto", True, False),
        ),
        depth_slack=Param(
            None,
            "stop this many steps after the first step whose candidates held a vulnerable one that a rule refused "
            "(not in the paper; None = all max_depth steps)",
            low=0,
            none_ok=True,
        ),
        patience=Param(
            None,
            "stop after this many steps in a row that do not lower the lowest loss of Eq. 4 found so far "
            "(not in the paper; None = all max_depth steps; docs/design/speed.md)",
            low=1,
        ),
    )

    @classmethod
    def build(cls, model_wrapper, **params):
        p = cls.check_params(params)
        with cls.parameter_errors(params):
            #
            # Algorithm 1: Neighbor_1(x) masks each word in turn and keeps the masked LM's tokens with
            # L > max(L[κ], L[0] - δ), "empirically set" κ = 20, δ = 3; paper masked LM: DistilBERT.
            #
            transformation = WordSwapNeighborhood(
                p["masked_lm"], kappa=p["kappa"], delta=p["delta"], device=p["device"], dtype=p["masked_lm_dtype"]
            )
            #
            # Goal (paper §3, Eq. 2-4): find x near x0 with f(x ⊕ p) != f(x) for the patch pair p of
            # x0, a swap the patch rule keeps in its sentence; the patch position is never modified (goal
            # function + its two constraints).
            #
            goal_function, constraints = double_perturbation_goal(model_wrapper, p, transformation.proposer)
            #
            # Not in the paper (docs/design/speed.md): under the natural neighbour rule a neighbour whose changed
            # word lost its part of speech can neither be reported nor stand in the beam; checked as a constraint, it
            # is never sent to the victim. By default only where the tagger costs less than the victim's two forwards
            # (a transformer on the CPU: half the queries, 1.24x less CPU time on MiniLM).
            #
            if p["neighbor_pos_first"] is True or (
                p["neighbor_pos_first"] == "auto" and transformer_on_cpu(model_wrapper)
            ):
                goal_function.neighbor_rule, first = goal_function.neighbor_rule.split_part_of_speech()
                constraints += first
            #
            # Algorithm 2: start from the beam {x0}; for i = 1..k expand every member by Neighbor_1 and
            # evaluate the candidates; "if any is vulnerable return the one with largest |F|", otherwise
            # keep the β = 20 candidates with the lowest loss; k = 6 (§3.3.1, large neighbourhood).
            # "Stop earlier if we find a vulnerable example" (§3.2): members are expanded expand_chunk
            # at a time, best first, with their masked sentences batched (docs/design/search.md).
            #
            search_method = SecondOrderBeamSearch(
                beam_width=p["beam_width"],
                max_depth=search_depth(p, goal_function.neighbor_rule),
                expand_chunk=p["expand_chunk"],
                prefetch=transformation.prefetch,
                #
                # Not in the paper (docs/design/neighbours.md): each step's survivors are the β best the neighbour
                # rule keeps, so the beam does not build on a sentence no one would write.
                #
                neighbor_rule=goal_function.neighbor_rule.for_beam(
                    lm=p["neighbor_lm_beam"], similarity=p["neighbor_similarity_beam"]
                ),
                #
                # Not in the paper (docs/design/speed.md): a beam whose loss stopped falling gives up.
                #
                patience=p["patience"],
                depth_slack=p["depth_slack"],
            )
            #
            # Summary rows of a second-order run (docs/design/search.md): victim accuracy, perplexity.
            #
            return second_order_attack(cls.name, p, goal_function, constraints, transformation, search_method)
