"""Certified (IBP) training variants on MR: held-out accuracy and certified accuracy after every epoch.

The measurements behind the certified victims' settings (docs/design/certified.md): the base architecture on
frozen GloVe, with Jia et al.'s word layer, with the word vectors trained, other kappa and ramps. Nothing is
cached; each run trains from scratch with the MR split and the packaged synonym list.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/ibp_training.py cnn --word-layer --train-embeddings \\
        --epochs 20 --ramp 10 --kappa 0.8 --log benchmarks/results/ibp_dev/cnn_unfrozen_wl.log

Prints one line per epoch and a JSON line with the test accuracy and certified accuracy, also appended to
``--log``.
"""

import argparse
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("arch", choices=["cnn", "bow", "lstm"])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--ramp", type=float, default=10, help="epochs over which kappa and eps grow")
    ap.add_argument("--clean", type=float, default=1, help="clean epochs before the ramp")
    ap.add_argument("--kappa", type=float, default=0.8)
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--dropout", type=float, default=0.3)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--weight-decay", type=float, default=0.0, help="the optimiser's weight decay")
    ap.add_argument("--word-layer", action="store_true", help="Jia et al.'s Linear -> ReLU on each word vector")
    ap.add_argument("--train-embeddings", action="store_true", help="train the word vectors from GloVe")
    ap.add_argument("--seed", type=int, default=0, help="training seed (the victims use 0)")
    ap.add_argument("--pool", choices=["max", "mean"], default=None, help="CNN pooling over positions (default max)")
    ap.add_argument("--log", default=None, help="append the epoch lines and the result here")
    args = ap.parse_args()

    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.models import training
    from textattack_secondorder.models.catalogue import EXTRA_GLOVE_WORDS
    from textattack_secondorder.models.ibp.certification import certified_accuracy
    from textattack_secondorder.models.ibp.objective import IBPObjective, IBPSchedule
    from textattack_secondorder.resources.glove import load_glove

    start = time.time()
    log = open(args.log, "a", encoding="utf-8") if args.log else None

    def say(line):
        print(line, flush=True)
        if log:
            log.write(line + "\n")
            log.flush()

    class Reporting(IBPObjective):
        """The victims' objective, saying each epoch's held-out accuracy and certified accuracy."""

        epoch = 0

        def score(self, model, dev):
            self.epoch += 1
            acc, cert = certified_accuracy(model, self.sets, dev)
            kappa, eps = self.schedule.at(self.epoch)
            say(
                f"  epoch {self.epoch} kappa {kappa:.2f} eps {eps:.2f} dev acc {acc:.3f} cert {cert:.3f} "
                f"({time.time() - start:.0f}s)"
            )
            return cert

    objective = Reporting(IBPSchedule(kappa=args.kappa, eps=args.eps, ramp_epochs=args.ramp, clean_epochs=args.clean))
    test = load_mr("test")
    model, _, metrics = training.train_word_model(
        args.arch,
        load_mr("train"),
        test,
        glove=load_glove(),
        epochs=args.epochs,
        dropout=args.dropout,
        lr=args.lr,
        batch_size=args.batch_size,
        weight_decay=args.weight_decay,
        extra_glove_words=EXTRA_GLOVE_WORDS,
        objective=objective,
        word_layer=args.word_layer,
        train_embeddings=args.train_embeddings,
        pool=args.pool,
        seed=args.seed,
        progress=False,
    )
    acc, cert = certified_accuracy(model, objective.sets, test)
    say(
        json.dumps(
            {
                **vars(args),
                "test_acc": round(acc, 4),
                "test_cert": round(cert, 4),
                "best_epoch": metrics["best_epoch"],
                "secs": round(time.time() - start, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
