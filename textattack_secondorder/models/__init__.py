"""Victim models of textattack-secondorder; import each name from the module that defines it.

* :mod:`.victims`: :func:`~.victims.load_victim` / :func:`~.victims.victim_dir` /
  :func:`~.victims.train_victim` (``UnknownVictimError``): the demo victims
  ``mr-cnn``, ``mr-lstm``, ``mr-bow`` (Zhang et al. 2021 base models: frozen GloVe
  50d + one hidden layer of 100) and ``mr-minilm`` (fine-tuned all-MiniLM-L6-v2),
  trained on first use and cached as Hugging Face model directories;
  :mod:`.catalogue`: ``VICTIMS``, their names and training settings (imports nothing).
* :mod:`.wrappers`: :class:`~.wrappers.SOModelWrapper`, the TextAttack model wrapper that pads per batch, not to 512.
* :mod:`.token_classifier`: :class:`~.token_classifier.TokenClassifier`, the token-level view (ids,
  probabilities, masked gradients) for κ/ρ and SP-Defense.
* :mod:`.prediction`: the batched prediction loop (model wrappers and raw Hugging Face models).
* :mod:`.loading`: :func:`~.loading.load_model_wrapper`, a model wrapper from a name the command line accepts.
* :mod:`.fingerprint`: :func:`~.fingerprint.model_fingerprint`, content digest of a victim (keys of the
  parts interrupted runs reuse).
* :mod:`.word_models`: :func:`~.word_models.register_auto_classes` lets
  ``AutoModelForSequenceClassification`` (and ``textattack attack --model DIR``) load the word-level models.

This file imports nothing: importing one module (``models.catalogue``, say) does not import the others.
"""
