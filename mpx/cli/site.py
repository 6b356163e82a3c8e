"""``mpx site STORE... --out DIR``: a static site of results stores (`mpx.site`): the leaderboard, a page
per method and per data set, the study pages, a CSV behind every table."""

from __future__ import annotations

import argparse

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "site",
        help="write a static site (leaderboard, methods, data sets, studies) from results stores",
        description="Write a static site from results stores (mpx run --out DIR: give DIR or DIR/results.sqlite; "
        "opened read-only): index.html (the leaderboard), a page per method and per data set, the claims, verdict "
        "and time-scale pages where the stores hold them, a CSV behind every table. No server, nothing fetched: "
        "open DIR/index.html or copy DIR to any static host.",
    )
    p.add_argument("stores", nargs="+", metavar="STORE", help="results folders or results.sqlite files")
    p.add_argument("--out", metavar="DIR", required=True, help="the site's folder (created; pages are replaced)")


def run(args: argparse.Namespace) -> int:
    import time

    from mpx.experiment.store import damage_as_error
    from mpx.site import build_site

    t0 = time.perf_counter()
    with damage_as_error(args.stores[0] if len(args.stores) == 1 else ", ".join(args.stores)):
        pages = build_site(args.stores, args.out)
    print(f"{len(pages)} pages written to {args.out} in {time.perf_counter() - t0:.1f} s; open {args.out}/index.html")
    return 0
