"""A comparison's figures that rest on too little, said where they are printed (docs/design/defenses.md).

* a defense that trained on nothing of its own: an A2T model whose attack built no adversarial example is the
  ``continue`` control under another name (:func:`~.defend.a2t_warning`, kept in its row); its row is marked;
* a column resting on fewer than :data:`MIN_SENTENCES` sentences a model: one sentence moves a share of ``n``
  sentences by ``100 / n`` points, more than most differences between defenses (the so-beam column of a
  comparison at its smallest settings rested on 3); the column is marked;
* κ and ρ over a transformer's first vocabulary entries (no ``--vocab-from``): single characters, word pieces
  and other scripts, not the words of the user's sentences.

Each warning names the number and the option that changes it.
"""

from ..models.word_models import is_word_model

#: a share of fewer sentences than this moves by more than 10 points a sentence
MIN_SENTENCES = 10

#: the columns that are shares of sentences: (columns, their name, the row's count of them (``None``: the set's
#: size), the set they are measured on, the option that sets its size)
COUNTED = (
    (("rho",), "ρ", None, "rho_train", "--rho-sentences"),
    (("rho_star",), "ρ*", None, "rho_test", "--rho-sentences"),
    (("sp_attack_asr",), "SP-Attack ASR", "sp_attack_attacked", "attacked", "--num-examples"),
    (("textfooler_asr", "asr1"), "textfooler ASR (and ASR1)", "textfooler_attacked", "attacked", "--num-examples"),
    (("so_beam_per_100",), "so-beam per 100", "so_beam_sentences", "so_beam", "--so-beam-examples"),
)


def plan_warnings(settings, data, wrapper):
    """Warnings known before any cell runs: the vocabulary, and the sets too small for their columns (an attack's
    count can only fall: it counts the sentences each model classifies correctly)."""
    out = []
    if not settings.get("vocab_from") and not is_word_model(getattr(wrapper, "model", None)):
        limit = settings["vocab_limit"]
        entries = f"the first {limit} vocabulary entries" if limit else "every vocabulary entry"
        out.append(
            f"κ and ρ run over {entries} of a transformer's tokenizer (single characters, word pieces and other "
            "scripts, not the words of your sentences): give --vocab-from YOUR_TRAIN.csv (or mr) to keep the "
            "entries that occur in those sentences"
        )
    sets = data["sets"]
    for _, heading, _, name, option in COUNTED:
        n = len(getattr(sets, name))
        if n < MIN_SENTENCES:
            out.append(_few(heading, str(n), n, option))
    return out


def marks(rows, data):
    """``(warned defenses, warned columns, warning lines)`` of the comparison's rows."""
    defenses, columns, lines = set(), set(), []
    for row in rows:
        if row.get("training_warning"):
            defenses.add(row["defense"])
            lines.append(f"{row['defense']} (seed {row['seed']}): {row['training_warning']}")
    sets = data["sets"]
    for keys, heading, count, name, option in COUNTED:
        measured = [r for r in rows if r.get(keys[0]) is not None]
        counts = [r.get(count, len(getattr(sets, name))) if count else len(getattr(sets, name)) for r in measured]
        counts = [c for c in counts if c is not None]
        if counts and min(counts) < MIN_SENTENCES:
            low, high = min(counts), max(counts)
            columns.update(keys)
            lines.append(_few(heading, str(low) if low == high else f"{low} to {high}", low, option))
    return defenses, columns, lines


def _few(heading, n, low, option):
    moves = "no sentence at all" if low == 0 else f"one sentence moves it by {100 / low:.0f} points"
    sentences = "sentence" if n == "1" else "sentences"
    return (
        f"{heading} rests on {n} {sentences} a model ({moves}): raise {option} (from {MIN_SENTENCES} sentences on, "
        "a sentence moves it by 10 points or less)"
    )
