"""The ``mpx`` command: one module per subcommand, each with ``add_parser(subparsers)`` and ``run(args)``.

Subcommand modules import only argparse at import time; the heavy work (numpy, readers) is imported
inside ``run`` so that ``mpx --help`` answers at once. Subcommands parse and print: the choices and the
work are the library's; argument helpers several subcommands share live in `mpx.cli.common` (subcommand
modules never import each other).

User errors — `mpx.errors.MpxError` (bad input, named) and a missing file — print one line and exit 1;
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from mpx import __version__

#: subcommand modules, in the order ``mpx --help`` lists them
COMMANDS = ("trace", "record", "datasets", "synth", "schedule", "partition", "run", "report", "figs", "evaluate", "estimate", "bench")


def build_parser() -> tuple[argparse.ArgumentParser, dict]:
    parser = argparse.ArgumentParser(
        prog="mpx",
        description="Score performance-counter multiplexing (schedulers and scalers) against simulator ground truth.",
    )
    parser.add_argument("--version", action="version", version=f"mpx {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = {}
    for name in COMMANDS:
        mod = importlib.import_module(f"mpx.cli.{name}")
        mod.add_parser(sub)
        modules[name] = mod
    return parser, modules


def main(argv: list[str] | None = None) -> int:
    parser, modules = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    from mpx.errors import MpxError

    try:
        return int(modules[args.command].run(args) or 0)
    except (MpxError, FileNotFoundError) as exc:
        print(f"mpx {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
