"""`build_site`: every page of the site from read-only results stores, in one pass."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

__all__ = ["STATIC", "build_site", "store_names"]

#: the vendored JavaScript and CSS, copied into every site
STATIC = Path(__file__).resolve().parent / "static"


def store_names(paths: Sequence[str | Path]) -> list[str]:
    """How each store is called on the site: its folder's name (``results/quickstart`` → ``quickstart``),
    numbered when two share one."""
    out: list[str] = []
    for p in paths:
        p = Path(p)
        base = (p if p.is_dir() else p.parent).resolve().name or "store"
        name, i = base, 2
        while name in out:
            name, i = f"{base}-{i}", i + 1
        out.append(name)
    return out


def _used_datasets(stores: Sequence[Any]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """dataset → the experiments that used it (from the ``cells`` of each latest run), and dataset → the
    events a config asked to keep as series (the timeline shows those)."""
    used: dict[str, list[str]] = {}
    series: dict[str, list[str]] = {}
    for store in stores:
        for exp in store.experiments():
            cells = store.table("cells", exp)
            for d in cells["dataset"].dropna().unique() if "dataset" in cells else ():
                used.setdefault(str(d), [])
                if exp not in used[str(d)]:
                    used[str(d)].append(exp)
            cfg = store.run_config(exp) or {}
            wanted = list((cfg.get("output") or {}).get("series_events") or [])
            for d in cells["dataset"].dropna().unique() if wanted and "dataset" in cells else ():
                series.setdefault(str(d), wanted)
    return used, series


def build_site(paths: Sequence[str | Path], out: str | Path) -> list[Path]:
    """Write the site of the results stores at ``paths`` (folders of ``mpx run --out`` or ``results.sqlite``
    files, opened read-only) into ``out``; the pages written, ``index.html`` first."""
    from mpx.experiment.store import open_store
    from mpx.site.html import write_page
    from mpx.site.leaderboard import leaderboard_rows
    from mpx.site.pages import dataset_pages, leaderboard_page, method_pages
    from mpx.site.studies import (claims_frame, claims_page, timescale_page, timescale_tables, verdict_frames,
                                  verdict_page)

    out = Path(out)
    names = store_names(paths)
    stores = [open_store(p) for p in paths]
    try:
        rows = leaderboard_rows(stores, names)
        claims = claims_frame(stores, names)
        verdicts = verdict_frames(stores, names)
        scales = timescale_tables(stores, names)
        used, series = _used_datasets(stores)
        alignment = pd.concat([s.table("alignment") for s in stores if "alignment" in s.tables()] or [pd.DataFrame()])
    finally:
        for s in stores:
            s.close()
    have = ["index.html", "methods.html", "datasets.html"]
    have += ["claims.html"] if claims is not None else []
    have += ["verdicts.html"] if verdicts else []
    have += ["timescale.html"] if scales else []
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(STATIC, out / "static", dirs_exist_ok=True)
    written = [leaderboard_page(out, rows, have, names)]
    written += method_pages(out, rows, have, claims, alignment)
    written += dataset_pages(out, rows, used, have, series)
    if claims is not None:
        written.append(claims_page(out, claims, have))
    if verdicts:
        written.append(verdict_page(out, verdicts, have))
    if scales:
        written.append(timescale_page(out, scales, have))
    index = json.dumps({"stores": [str(p) for p in paths], "names": names,
                        "pages": [str(p.relative_to(out)) for p in written]}, indent=1) + "\n"
    write_page(out / "site.json", index)
    return written
