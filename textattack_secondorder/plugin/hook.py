"""What the start-up hook does when TextAttack is imported (see ``textattack_secondorder_hook``).

Kept free of torch/TextAttack imports at module level: it runs inside TextAttack's own import.
Before ``textattack`` runs: the NLTK stopwords TextAttack reads at import time, its first-run
NLTK downloads kept off the console, and (on transformers 5) the one transformers name flair
imports. Right after it: our recipes in TextAttack's tables and our extensions of its logger and
attacker.
"""

import contextlib
import inspect
import io
import logging
import sys

import nltk
import nltk.data

from ..resources.paths import data_path

# transformers, .registry and .extensions inside functions: this module runs inside `import textattack`, before
# TextAttack's own import (nltk is needed first, so it is at the top); .registry/.extensions import TextAttack, and
# transformers is imported only on the step that patches it, in the order TextAttack's import expects.
logger = logging.getLogger("textattack_secondorder")

# What TextAttack's first import in a cache folder (``shared/utils/install.py: _post_install``) asks
# ``nltk.download`` for and could not get; reported in one line once the import is over.
_nltk_failed = []
_nltk_download = None  # the real ``nltk.download`` while ours stands in for it


def nltk_data_dir():
    """Folder holding the NLTK data this package ships (English stopwords)."""

    return str(data_path("nltk_data"))


def add_nltk_data_path():
    """Append the shipped NLTK data to ``nltk.data.path`` (the user's own data keeps priority)."""
    path = nltk_data_dir()
    if path not in nltk.data.path:
        nltk.data.path.append(path)
    return path


def quiet_nltk_downloads():
    """Until :func:`report_nltk_downloads`, ``nltk.download`` prints nothing and records what failed.

    TextAttack's first import (once per cache folder) downloads six NLTK packages
    (averaged_perceptron_tagger, stopwords, omw, universal_tagset, wordnet, punkt). Offline each
    prints an error nobody can act on; our recipes need only the stopwords, which we ship.
    """
    global _nltk_download

    if _nltk_download is not None:
        return
    _nltk_download = original = nltk.download

    try:  # nltk's errors go to ``print_error_to``, bound to the real sys.stderr when nltk was imported
        takes_error_stream = "print_error_to" in inspect.signature(original).parameters
    except (TypeError, ValueError):
        takes_error_stream = False

    def download(info_or_id=None, *args, **kwargs):
        if info_or_id is None:  # the interactive downloader: leave it alone
            return original(info_or_id, *args, **kwargs)

        sink = io.StringIO()
        kwargs["quiet"] = True
        if takes_error_stream:
            kwargs.setdefault("print_error_to", sink)
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            try:
                ok = original(info_or_id, *args, **kwargs)
            except Exception:  # noqa: BLE001 - TextAttack ignores the result too
                ok = False
        if not ok:
            _nltk_failed.append(str(info_or_id))
        return ok

    nltk.download = download


def report_nltk_downloads():
    """Put the real ``nltk.download`` back; say in one line which NLTK packages TextAttack could not get."""
    global _nltk_download
    if _nltk_download is None:
        return

    nltk.download, _nltk_download = _nltk_download, None
    failed = [n for n in dict.fromkeys(_nltk_failed) if n != "stopwords"]
    _nltk_failed.clear()
    if failed:
        logger.warning(
            "textattack-secondorder: TextAttack could not download NLTK data (%s; offline?); our recipes "
            "do not need it; for TextAttack's own WordNet/POS recipes run `python -m nltk.downloader %s` "
            "once online",
            ", ".join(failed),
            " ".join(failed),
        )


# flair 0.15.1, which TextAttack imports at the top of textattack/shared/utils/strings.py, does
# ``from transformers import LayoutLMv2FeatureExtractor`` (only for an ``isinstance`` check).
# transformers 5 deleted the vision feature extractors in favour of image processors
# (huggingface/transformers#41174, "[v5] Delete feature extractors used for vision"), so
# ``import textattack`` fails there. The old name is defined as its replacement, once, when missing.
# The removed class was the PIL-based image processor; 5.x calls that one ...ImageProcessorPil (its plain
# ...ImageProcessor needs torchvision and, without it, falls back to the PIL one with a warning).
FLAIR_REMOVED_NAME = "LayoutLMv2FeatureExtractor"
FLAIR_REPLACEMENTS = ("LayoutLMv2ImageProcessorPil", "LayoutLMv2ImageProcessor")


def define_names_flair_imports():
    """On transformers >= 5, define ``transformers.LayoutLMv2FeatureExtractor`` if missing, before flair is imported.

    Returns the object defined, or None when nothing was done (transformers 4, name present,
    flair already imported). Only runs as TextAttack (which imports transformers anyway) is imported.
    """
    if "flair" in sys.modules:
        return None
    import transformers

    if int(transformers.__version__.split(".")[0]) < 5:
        return None
    try:
        getattr(transformers, FLAIR_REMOVED_NAME)
        return None
    except (AttributeError, ImportError):
        pass
    for name in FLAIR_REPLACEMENTS:
        try:
            replacement = getattr(transformers, name)
            break
        except (AttributeError, ImportError):
            continue
    else:  # no vision support: a class nothing is an instance of
        replacement = type(FLAIR_REMOVED_NAME, (), {})
    # Looking up the image processor can put a new lazy module in sys.modules["transformers"]
    # (seen on 5.24): define the name on the module flair will import from, and on the old one.
    for module in {id(m): m for m in (transformers, sys.modules.get("transformers"))}.values():
        if module is not None:
            setattr(module, FLAIR_REMOVED_NAME, replacement)
    return replacement


def before_textattack_import():
    try:
        add_nltk_data_path()
    except Exception as e:  # never break the user's import
        logger.warning("textattack-secondorder: could not add its NLTK data path: %s", e)
    try:
        quiet_nltk_downloads()
    except Exception:  # noqa: BLE001 - never break the user's import; TextAttack then prints its errors
        pass
    try:
        define_names_flair_imports()
    except Exception as e:  # never break the user's import
        logger.warning("textattack-secondorder: could not prepare transformers for flair: %s", e)


def after_textattack_import():
    """Called once ``textattack`` has finished importing."""
    try:
        report_nltk_downloads()
    except Exception:  # noqa: BLE001 - never break the user's import
        pass
    try:
        from .registry import install_tables

        install_tables()
    except Exception as e:  # never break the user's import
        logger.warning("textattack-secondorder: could not register its recipes with TextAttack: %s", e)
    try:
        from .extensions import extend_textattack

        extend_textattack()
    except Exception as e:
        logger.warning("textattack-secondorder: could not extend TextAttack's loggers: %s", e)
