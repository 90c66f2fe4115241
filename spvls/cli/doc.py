"""`spvls doc NAME...`: what a name means, from the grammar and the text that defines it."""

from __future__ import annotations

import argparse
import json
import sys

from ..features import lookup


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.add_argument(
        "names",
        nargs="+",
        metavar="NAME",
        help="e.g. OpLoopMerge, Shader, SPV_KHR_quad_control, DebugLine, GLSL.std.450:Sin, rotate.delta",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    found, missing = [], []
    for name in args.names:
        docs = lookup.find(name)
        if docs:
            found.extend(docs)
        else:
            missing.append(name)
    if args.format == "json":
        print(json.dumps([lookup.as_json(d) for d in found], indent=1, ensure_ascii=False))
    else:
        render = lookup.plain if args.format == "text" else (lambda md: md.rstrip() + "\n")
        for n, d in enumerate(found):
            if n:
                print("\n" + "-" * 72 + "\n" if args.format == "text" else "\n---\n")
            print(render(d.markdown), end="")
            if args.format == "text" and d.url and d.url not in d.markdown:
                print(f"\n{d.url}")
    for name in missing:
        close = lookup.did_you_mean(name)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        print(f"spvls doc: unknown name {name!r}{hint}", file=sys.stderr)
    return 1 if missing else 0
