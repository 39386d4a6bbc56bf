"""What the start-up hook does when TextAttack is imported (see ``textattack_secondorder_hook``).

Kept free of torch/TextAttack imports at module level: it runs inside TextAttack's own import.
Before ``textattack`` runs: the NLTK stopwords TextAttack reads at import time. Right after it:
our recipes in TextAttack's tables and our extensions of its logger and attacker.
"""
import logging

logger = logging.getLogger("textattack_secondorder")


def nltk_data_dir():
    """Folder holding the NLTK data this package ships (English stopwords)."""
    from ..resources.paths import data_path

    return str(data_path("nltk_data"))


def add_nltk_data_path():
    """Append the shipped NLTK data to ``nltk.data.path`` (the user's own data keeps priority)."""
    import nltk.data

    path = nltk_data_dir()
    if path not in nltk.data.path:
        nltk.data.path.append(path)
    return path


def before_textattack_import():
    try:
        add_nltk_data_path()
    except Exception as e:  # never break the user's import
        logger.warning("textattack-secondorder: could not add its NLTK data path: %s", e)


def after_textattack_import():
    """Called once ``textattack`` has finished importing."""
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
