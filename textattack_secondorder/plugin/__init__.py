"""TextAttack glue: the start-up hook's callbacks, the recipe registry and our extensions of TextAttack.

* :mod:`.hook` — what ``textattack_secondorder_hook`` calls around ``import textattack``;
* :mod:`.registry` — our recipes in TextAttack's ``--recipe`` tables, built from the recipe classes
  (building an attack by name is :mod:`textattack_secondorder.attack_recipes.build`);
* :mod:`.recipe_params` — the table that lets ``NAME^param=value`` through argparse;
* :mod:`.extensions` — extra CSV columns and summary rows in TextAttack's attack loop.

Imports run one way: hook -> registry/extensions -> the library. Nothing here imports the CLI.
"""

from .hook import add_nltk_data_path, quiet_nltk_downloads, report_nltk_downloads


def register():
    """Add this package's recipes and extensions to TextAttack (imports TextAttack).

    Returns TextAttack's attack recipe table.
    """
    # TextAttack (and .registry/.extensions, which import it) only inside: the start-up hook imports
    # this package (for .hook) before TextAttack's own import has run.
    add_nltk_data_path()
    quiet_nltk_downloads()
    try:
        import textattack  # noqa: F401
    finally:
        report_nltk_downloads()

    from .extensions import extend_textattack
    from .registry import install_tables

    table = install_tables()
    extend_textattack()
    return table
