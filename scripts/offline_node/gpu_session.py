"""One session on a lent GPU node (issue 36): the gpu tests, speed, and SP-Defense on mr-minilm with seeds.

Run by ``scripts/offline_node/gpu_session.sh`` through the offline bundle's runner (so TextAttack and this package
are importable and everything is offline). Every phase writes what it finished to ``$OUT`` at once, so
a run stopped by its time limit still returns the phases before it; the whole run keeps to
``SESSION_SECONDS`` (default 565, counted from the start of gpu_session.sh, the bundle's install included)
and stops its last jobs itself before then. At most 8 files go to
``$OUT``: summary.json (everything structured, updated after each phase and job), session.log (written
by the .sh), gpu_tests.txt, table.md / table.json (the SP-Defense table, updated as jobs finish),
results.tar.gz (κ files, defense.json of every model, job logs).

Phases:
  env       versions, GPU, CPU count
  tests     python -m pytest -m gpu tests/test_gpu.py (each command on CUDA against the CPU)
  victim    textattack-so train-victims --names mr-minilm --device DEVICE (MR sentences from the bundle)
  speed     benchmarks/defend_speed.py (Rand, SP-D K=1, SP-D K=32: steps/s) and flip-capability
            sentences/s at m=128 over 3,000 words
  guide     benchmarks/sp_defense_gradient_choice.py on the victim: how often the Eq. 5 minimum flips the
            prediction, against 8 and 32 checked candidates (why ρ* moves little: the guide on a small model)
  table     benchmarks/sp_defense.py on mr-minilm: vanilla, then per seed continue / Rand / SP-D K=1 /
            SP-D K=32, ``JOBS`` at a time on the one GPU (seed 0 first); ρ and ρ* with their standard
            errors over sentences (set size) and ρ* over MR words (``--rho-star-vocab-from mr``: the
            vocabulary limit)

Sizes: ``GPU_SESSION_SIZE=full`` (default: the issue's sizes) or ``tiny`` (a few sentences and steps: the
same path on a CPU in minutes, to check the script). ``DEVICE`` (default cuda), ``JOBS``, ``SEEDS``,
``STEPS``, ``SESSION_SECONDS``, ``TABLE_JOBS`` (job names to run, e.g. "guide sp-defense-K32-seed0")
override; ``PHASES`` (default "tests speed table") picks phases, e.g. a
second session for the seeds a first one did not reach: ``PHASES=table SEEDS="1 2"`` (the vanilla row and
the Eq. 5 guide are repeated: they take a minute).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("OUT") or "/tmp/gpu_session_out")
WORK = Path(os.environ.get("WORK") or "/tmp/gpu_session_work")
SIZE = os.environ.get("GPU_SESSION_SIZE", "full")
DEVICE = os.environ.get("DEVICE", "cuda")
START = float(os.environ.get("SESSION_START") or time.time())  # the .sh's start: the bundle install counts too

SIZES = {
    "full": {
        "steps": 3000,
        "seeds": [0, 1, 2],
        "rho_sentences": 100,
        "kappa_sentences": 200,
        "attack_examples": 200,
        "m": 128,
        "vocab_limit": 3000,
        "model_batch_size": 512,
        "speed_steps": 300,
        "speed_sentences": 40,
        "guide_sentences": 300,
        "guide_candidates": [1, 8, 32],
        "victim": None,
        "jobs": 7,
        "seconds": 565,
        "test_seconds": 150,
    },
    "tiny": {
        "steps": 3,
        "seeds": [0],
        "rho_sentences": 3,
        "kappa_sentences": 4,
        "attack_examples": 3,
        "m": 8,
        "vocab_limit": 40,
        "model_batch_size": 64,
        "speed_steps": 4,
        "speed_sentences": 6,
        "guide_sentences": 4,
        "guide_candidates": [1, 4],
        "victim": {"examples": 48, "epochs": 1},
        "jobs": 2,
        "seconds": 3000,
        "test_seconds": 600,
    },
}
S = dict(SIZES[SIZE])
S["jobs"] = int(os.environ.get("JOBS", S["jobs"]))
S["seconds"] = float(os.environ.get("SESSION_SECONDS", S["seconds"]))
S["steps"] = int(os.environ.get("STEPS", S["steps"]))
if os.environ.get("SEEDS"):
    S["seeds"] = [int(s) for s in os.environ["SEEDS"].split()]
DEADLINE = START + S["seconds"]
SUMMARY = {"size": SIZE, "device": DEVICE, "settings": S, "phases": {}}


def left():
    return DEADLINE - time.time()


def log(message):
    print(f"[{time.time() - START:6.0f}s] {message}", flush=True)


def write(name, text):
    tmp = OUT / f".{name}.tmp"
    tmp.write_text(text)
    os.replace(tmp, OUT / name)


def save_summary():
    SUMMARY["elapsed_seconds"] = round(time.time() - START, 1)
    write("summary.json", json.dumps(SUMMARY, indent=1, default=str) + "\n")


def phase(name):
    """Decorator-like helper: time a phase, record its result or error in the summary, save it."""

    def wrap(fn):
        t = time.time()
        log(f"phase {name} ...")
        try:
            result = fn()
            SUMMARY["phases"][name] = {"ok": True, "seconds": round(time.time() - t, 1), **(result or {})}
        except Exception as e:  # noqa: BLE001 - a failed phase is recorded, the next one still runs
            SUMMARY["phases"][name] = {"ok": False, "seconds": round(time.time() - t, 1), "error": repr(e)[-2000:]}
        log(f"phase {name}: {SUMMARY['phases'][name]}"[:800])
        save_summary()
        return SUMMARY["phases"][name]

    return wrap


def run(argv, timeout, log_to=None, env=None):
    """Run a command in WORK (never the checkout: it would shadow the installed package); output kept."""
    t = time.time()
    with open(log_to or os.devnull, "w") as f:
        p = subprocess.run(argv, cwd=WORK, stdout=f, stderr=subprocess.STDOUT, timeout=max(1, timeout), env=env)
    return p.returncode, time.time() - t


def so(*args):
    return [sys.executable, "-m", "textattack_secondorder", *map(str, args)]


def bench(name, *args):
    return [sys.executable, str(REPO / "benchmarks" / name), *map(str, args)]


# ----------------------------------------------------------------------------- phases
def env_phase():
    import torch

    info = {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "cuda": torch.cuda.is_available(),
        "cpus": os.cpu_count(),
    }
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
        info["gpu_memory_gib"] = round(torch.cuda.get_device_properties(0).total_memory / 2**30, 1)
    for dist in ("transformers", "tokenizers", "textattack", "flair", "datasets", "pyarrow", "nltk", "numpy"):
        try:
            info[dist] = __import__("importlib.metadata").metadata.version(dist)
        except Exception:  # noqa: BLE001
            info[dist] = None
    try:
        smi = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10).stdout.strip()
        info["nvidia_smi"] = smi
    except Exception:  # noqa: BLE001
        pass
    return info


def tests_phase():
    env = dict(os.environ, TA_SO_GPU_TEST_DEVICE=DEVICE)
    argv = [sys.executable, "-m", "pytest", "-q", "-m", "gpu", str(REPO / "tests" / "test_gpu.py")]
    argv += ["-c", str(REPO / "pytest.ini"), "--rootdir", str(REPO), "-p", "no:cacheprovider", "--durations=5"]
    code, secs = run(argv, min(S["test_seconds"], left() - 60), WORK / "gpu_tests.txt", env)
    text = (WORK / "gpu_tests.txt").read_text()
    write("gpu_tests.txt", text[-200000:])
    last = [ln for ln in text.splitlines() if " passed" in ln or " failed" in ln or " error" in ln]
    return {"exit_code": code, "result": last[-1] if last else None}


def victim_phase():
    out = WORK / "victim.json"
    if S["victim"]:  # tiny: MiniLM on a few sentences, one epoch (the same training code)
        code = (
            "import json, sys\n"
            "from textattack_secondorder.datasets.mr import load_mr\n"
            "from textattack_secondorder.models.victims import train_victim\n"
            f"n = {S['victim']['examples']}\n"
            f"m = train_victim('mr-minilm', data=(load_mr('train')[:n], load_mr('test')[:n]), device={DEVICE!r}, "
            f"epochs={S['victim']['epochs']}, force=True)\n"
            f"open({str(out)!r}, 'w').write(json.dumps([m]))\n"
        )
        argv = [sys.executable, "-c", code]
    else:
        argv = so("train-victims", "--names", "mr-minilm", "--device", DEVICE, "--force", "--json", out)
    code, secs = run(argv, left() - 30, WORK / "victim.log")
    if code:
        raise RuntimeError(f"training mr-minilm failed ({code}): {(WORK / 'victim.log').read_text()[-1500:]}")
    m = json.loads(out.read_text())[0]
    return {k: m.get(k) for k in ("test_accuracy", "train_seconds", "device", "n_train")} | {"wall_seconds": secs}


def speed_phase():
    result = {}
    argv = bench(
        "defend_speed.py", "--model", "mr-minilm", "--device", DEVICE, "--steps", S["speed_steps"],
        "--warmup", min(10, S["speed_steps"] - 1), "--candidates", 32, "--out", WORK / "speed_defend.json",
    )  # fmt: skip
    code, secs = run(argv, min(240, left() - 60), WORK / "speed_defend.log")
    if code == 0:
        result["defend"] = json.loads((WORK / "speed_defend.json").read_text())["rows"]
    else:
        result["defend_error"] = (WORK / "speed_defend.log").read_text()[-1500:]
    n = S["speed_sentences"]
    argv = so(
        "flip-capability", "--model", "mr-minilm", "--split", "test", "--num-examples", n, "-m", 128,
        "--vocab-limit", 3000, "--device", DEVICE, "--model-batch-size", S["model_batch_size"],
        "--out", WORK / "speed_kappa.json",
    )  # fmt: skip
    code, secs = run(argv, min(180, left() - 60), WORK / "speed_kappa.log")
    if code == 0:
        summary = json.loads((WORK / "speed_kappa.json").read_text())["summary"]
        per_sentence = summary["seconds_per_sentence"] if summary["correct"] else None
        result["flip_capability"] = {
            "sentences": n,
            "correct": summary["correct"],
            "wall_seconds": round(secs, 1),
            "sentences_per_second_wall": round(n / secs, 2),  # model loading and the D+ check included
            "sentences_per_second_euba": round(1 / per_sentence, 2) if per_sentence else None,  # per D+ sentence
            "queries_per_sentence": round(summary["queries_per_sentence"]),
        }
    else:
        result["flip_capability_error"] = (WORK / "speed_kappa.log").read_text()[-1500:]
    return result


# ----------------------------------------------------------------------------- the table
def table_jobs():
    jobs = [{"name": "vanilla", "models": ["vanilla"], "seeds": [0]}]
    for seed in S["seeds"]:
        for model, k in (("continue", None), ("rand", None), ("sp-defense", 1), ("sp-defense", 32)):
            name = f"{model}{'' if k is None else f'-K{k}'}-seed{seed}"
            jobs.append({"name": name, "models": [model], "seeds": [seed], "candidates": k})
    return jobs


def picked(jobs):
    """``TABLE_JOBS`` (job names, e.g. "sp-defense-K32-seed0 rand-seed1") keeps only those jobs."""
    names = os.environ.get("TABLE_JOBS", "").split()
    unknown = sorted(set(names) - {j["name"] for j in jobs})
    if unknown:
        raise SystemExit(f"TABLE_JOBS: no such job {', '.join(unknown)}; valid: {' '.join(j['name'] for j in jobs)}")
    return [j for j in jobs if j["name"] in names] if names else jobs


def job_argv(job):
    argv = bench(
        "sp_defense.py", "--victims", "mr-minilm", "--models", *job["models"], "--seeds", *job["seeds"],
        "--steps", S["steps"], "--rho-sentences", S["rho_sentences"], "--m", S["m"], "--vocab-limit", S["vocab_limit"],
        "--kappa-sentences", S["kappa_sentences"], "--attack-examples", S["attack_examples"], "--no-textfooler",
        "--device", DEVICE, "--model-batch-size", S["model_batch_size"], "--threads", 1,
        "--rho-star-vocab-from", "mr", "--workdir", WORK / "jobs" / job["name"],
        "--out", WORK / "rows" / f"{job['name']}.json",
    )  # fmt: skip
    if job.get("candidates"):
        argv += ["--gradient-candidates", str(job["candidates"])]
    return argv


def merge_table():
    sys.path.insert(0, str(REPO / "benchmarks"))
    import sp_defense as bench_module  # the benchmark's own table (mean ± 95 % interval over seeds)

    rows = []
    for f in sorted((WORK / "rows").glob("*.json")):
        try:
            rows += json.loads(f.read_text())["rows"]
        except (OSError, ValueError, KeyError):
            continue
    order = {"vanilla": 0, "continue": 1, "rand": 2, "sp-defense": 3, "sp-defense, K=32": 4}
    rows.sort(key=lambda r: (order.get(r["model"], 9), r["seed"] if r["seed"] is not None else -1))
    write("table.json", json.dumps({"settings": S, "rows": rows}, indent=1) + "\n")
    write("table.md", bench_module.table(rows))
    return rows


def table_phase():
    (WORK / "rows").mkdir(parents=True, exist_ok=True)
    (WORK / "logs").mkdir(parents=True, exist_ok=True)
    pending = table_jobs()
    guide = {
        "name": "guide",
        "argv": bench(
            "sp_defense_gradient_choice.py", "--model", "mr-minilm", "--sentences", S["guide_sentences"],
            "--candidates", *S["guide_candidates"], "--device", DEVICE, "--out", WORK / "gradient_choice.json",
        ),
    }  # fmt: skip
    pending.insert(1, guide)
    pending = picked(pending)
    running, done, durations = {}, [], []
    margin = 25  # seconds kept at the end to stop jobs and pack
    while pending or running:
        # start jobs while there is room and time for one (the slowest finished job as the estimate)
        estimate = max(durations) if durations else 0
        while pending and len(running) < S["jobs"] and left() - margin > estimate * 0.6:
            job = pending.pop(0)
            argv = job.get("argv") or job_argv(job)
            f = open(WORK / "logs" / f"{job['name']}.log", "w")
            proc = subprocess.Popen(argv, cwd=WORK, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
            running[job["name"]] = (proc, time.time(), f)
            log(f"started {job['name']} ({len(running)} running, {len(pending)} waiting)")
        if left() - margin <= estimate * 0.6 and pending:
            log(f"not starting {len(pending)} job(s): not enough time left ({left():.0f} s)")
            SUMMARY["phases"]["table_not_started"] = [j["name"] for j in pending]
            pending = []
        time.sleep(2)
        for name, (proc, t, f) in list(running.items()):
            if proc.poll() is not None:
                f.close()
                del running[name]
                durations.append(time.time() - t)
                done.append({"job": name, "exit_code": proc.returncode, "seconds": round(time.time() - t, 1)})
                log(f"finished {name}: exit {proc.returncode} in {time.time() - t:.0f} s")
                SUMMARY["table_jobs"] = done
                if name == "guide" and (WORK / "gradient_choice.json").exists():
                    SUMMARY["guide"] = json.loads((WORK / "gradient_choice.json").read_text())
                merge_table()
                save_summary()
            elif left() < margin:
                os.killpg(proc.pid, signal.SIGTERM)
                f.close()
                del running[name]
                done.append({"job": name, "exit_code": "stopped at the time limit", "seconds": round(time.time() - t)})
                log(f"stopped {name} at the time limit")
    rows = merge_table()
    return {"rows": len(rows), "jobs": done}


def pack():
    with tarfile.open(OUT / ".results.tar.gz.tmp", "w:gz") as tar:
        for path in sorted(WORK.rglob("*")):
            if not path.is_file() or path.suffix not in (".json", ".md", ".log", ".csv", ".txt"):
                continue
            if path.stat().st_size > 8e6 or path.name.startswith(".") or "cache" in path.parts:
                continue
            in_model = "model" in path.parts and path.name != "defense.json"
            if in_model or any(p.endswith(".shards") for p in path.parts):
                continue  # the models' tokenizer files, the κ shard stores: not needed to read the results
            tar.add(path, arcname=str(path.relative_to(WORK)))
    os.replace(OUT / ".results.tar.gz.tmp", OUT / "results.tar.gz")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    if WORK.exists() and os.environ.get("KEEP_WORK") != "1":
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True, exist_ok=True)
    save_summary()
    phases = os.environ.get("PHASES", "tests speed table").split()  # the victim is always trained
    phase("env")(env_phase)
    if "tests" in phases:
        phase("tests")(tests_phase)
    victim = phase("victim")(victim_phase)
    if victim["ok"]:
        if "speed" in phases:
            phase("speed")(speed_phase)
        if "table" in phases:
            phase("table")(table_phase)
    pack()
    save_summary()
    log(f"done in {time.time() - START:.0f} s; outputs in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
