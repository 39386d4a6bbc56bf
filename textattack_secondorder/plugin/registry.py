"""Registration of this package's recipes with the stock TextAttack command line.

TextAttack resolves ``--recipe NAME`` through two module-level dicts,
``textattack.attack_args.ATTACK_RECIPE_NAMES`` and
``textattack.augment_args.AUGMENTATION_RECIPE_NAMES`` (name -> a Python
expression that is ``eval``-ed). :func:`install_tables` adds our entries and
replaces each dict by a :class:`RecipeTable`, a ``dict`` whose ``keys()`` also
accept ``"name^param=value,..."`` so argparse lets recipe parameters through.

Recipe parameters are Python literals, as TextAttack evaluates them:
``--recipe "so-beam^beam_width=10,max_depth=4"``; quote strings:
``--recipe "textfooler-offline^synonyms='my_synonyms.json'"``.
"""
import ast
import sys
from collections.abc import KeysView

SPLIT = "^"  # textattack.shared.utils.ARGS_SPLIT_TOKEN

# name -> attribute path inside this package; each class has ``build(model_wrapper, **params)``.
ATTACK_RECIPES = {
    "so-beam": "attack_recipes.SOBeam",
    "so-enum": "attack_recipes.SOEnum",
    "so-random": "attack_recipes.SORandom",
    "sp-attack": "attack_recipes.SPAttack",
    "textfooler-offline": "attack_recipes.TextFoolerOffline",
    "bae-offline": "attack_recipes.BAEOffline",
    "alzantot-offline": "attack_recipes.AlzantotOffline",
}
# name -> attribute path of an Augmenter class accepting TextAttack's augment keyword arguments.
AUGMENTATION_RECIPES = {
    "sp-defense": "augmentation.SPDefenseAugmenter",
}


def _expression(path):
    return f"__import__('textattack_secondorder').{path}"


def resolve(path):
    """Return the object at ``path`` (for example ``attack_recipes.SOBeam``) inside this package."""
    import importlib

    obj = importlib.import_module("textattack_secondorder")
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def parse_recipe_params(text):
    """Parse ``"a=1,b='x',c=True"`` into a dict; bare words are taken as strings.

    Raises ``ValueError`` naming the bad part.
    """
    text = (text or "").strip()
    if not text:
        return {}
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"Cannot parse recipe parameters {text!r}: write them as name=value,name=value") from e
    if call.args:
        raise ValueError(f"Recipe parameters must be name=value pairs, got {text!r}")
    params = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise ValueError(f"Recipe parameters must be name=value pairs, got {text!r}")
        try:
            params[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:
            params[kw.arg] = ast.get_source_segment(f"f({text})", kw.value)
    return params


class _RecipeKeys(KeysView):
    """Keys view that also contains ``"name^params"`` for every known ``name``."""

    def __contains__(self, key):
        if isinstance(key, str) and SPLIT in key:
            key = key.split(SPLIT, 1)[0]
        return dict.__contains__(self._mapping, key)

    def __repr__(self):
        return f"{type(self).__name__}({list(self)})"


class RecipeTable(dict):
    """TextAttack's recipe dict, extended to accept ``name^params`` on the command line."""

    def keys(self):
        return _RecipeKeys(self)

    def __getitem__(self, key):
        if isinstance(key, str) and SPLIT in key:
            name, params = key.split(SPLIT, 1)
            # Only reached for augmentation recipes: TextAttack splits attack recipes itself.
            return (
                f"__import__('textattack_secondorder').registry.augmenter_with_params("
                f"{name!r}, {dict.__getitem__(self, name)!r}, {params!r})"
            )
        return dict.__getitem__(self, key)


def augmenter_with_params(name, expression, params):
    """Callable building augmenter ``name`` with parameters parsed from ``params``."""
    import textattack  # noqa: F401  (the expression may refer to it)

    factory = eval(expression, {"textattack": textattack, "__builtins__": __builtins__})
    extra = parse_recipe_params(params)

    def build(**kwargs):
        kwargs.update(extra)
        return factory(**kwargs)

    return build


def _swap_table(module, attr, ours):
    table = getattr(module, attr, None)
    if table is None:
        return
    table.update({k: _expression(v) for k, v in ours.items()})
    if isinstance(table, RecipeTable):
        return
    new = RecipeTable(table)
    # Every TextAttack module holding the plain dict (it has several when TextAttack
    # was imported before us) gets the table that accepts "name^params".
    for other in list(sys.modules.values()):
        if getattr(other, "__name__", "").startswith("textattack") and getattr(other, attr, None) is table:
            setattr(other, attr, new)


def install_tables(module=None):
    """Add our recipes to TextAttack's tables in ``module`` (or in every loaded args module)."""
    modules = [module] if module is not None else [
        sys.modules[n] for n in ("textattack.attack_args", "textattack.augment_args") if n in sys.modules
    ]
    for m in modules:
        _swap_table(m, "ATTACK_RECIPE_NAMES", ATTACK_RECIPES)
        _swap_table(m, "AUGMENTATION_RECIPE_NAMES", AUGMENTATION_RECIPES)
    if any(getattr(m, "ATTACK_RECIPE_NAMES", None) is not None for m in modules):
        _register_model_classes()


def _register_model_classes():
    """Let ``textattack attack --model DIR`` load this package's word-level victims."""
    try:
        from .models import register_auto_classes
    except ImportError:
        return
    register_auto_classes()


def register():
    """Register our recipes with TextAttack (imports TextAttack). Returns the attack recipe table."""
    from . import _plugin

    _plugin.add_nltk_data_path()
    import textattack.attack_args
    import textattack.augment_args

    install_tables(textattack.attack_args)
    install_tables(textattack.augment_args)
    from .extensions import extend_textattack

    extend_textattack()
    return textattack.attack_args.ATTACK_RECIPE_NAMES
