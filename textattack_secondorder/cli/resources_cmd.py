"""``textattack-so resources``: what each resource slot resolves to, exactly what a run loads (nothing is loaded)."""

import json


def add_parser(subparsers):
    p = subparsers.add_parser("resources", help="print what each resource slot (masked LM, causal LM, ...) resolves to")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


def run(args):
    from ..resources import describe, hub_available

    rows = describe()
    if args.json:
        print(json.dumps({"hub_available": hub_available(), "slots": rows}, indent=2))
        return 0
    print(f"Hugging Face hub usable: {'yes' if hub_available() else 'no (offline defaults)'}")
    cols = ["slot", "resolves_to", "loads", "origin", "available", "env"]
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(widths[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(widths[c]) for c in cols))
    for r in rows:
        if r["note"]:
            print(f"  ! {r['slot']}: {r['note']}")
    return 0 if all(r["available"] for r in rows) else 1
