"""The site's pages for people: the leaderboard (index), a page per method and a page per data set.

Every number comes from `mpx.site.leaderboard.leaderboard_rows` (the rankings) or straight from the
manifest and traces (`mpx.datasets.shipped`); the registries give each method's citation (its ``source``
attribute), its parameters (`mpx.params.Params.get_params`) and its module's docstring, which says what
mpx checked against the authors' code.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from mpx.site.html import Column, esc, frame_table, page, slug, table, write_csv, write_page

__all__ = ["KINDS", "dataset_pages", "leaderboard_page", "literal", "method_href", "method_pages"]


def _pct(v: Any) -> str:
    return f"{100 * float(v):.2f}"


def _x(v: Any) -> str:
    return f"{float(v):.2f}"


def _rank(v: Any) -> str:
    return f"{float(v):.0f}"


def method_href(kind: str, name: str, depth: int = 0) -> str:
    """The page of a method (``kind``: scaler, scheduler or aligner), relative to a page ``depth`` deep."""
    return f"{'../' * depth}methods/{kind}-{slug(name)}.html"


def group_id(r: pd.Series) -> str:
    """The anchor of a leaderboard group on the index."""
    return "g-" + slug(f"{r['store']} {r['experiment']} {r['family']} {r['set']} {r['pmu']} {r['counters']} "
                       f"{r['settings']}")


def _rank_text(r: pd.Series) -> str:
    if not r["complete"]:
        return "not ranked"
    return "1 (tied)" if r["tied"] else f"{r['rank']:.0f}"


def board_columns(depth: int = 0) -> list[Column]:
    """The leaderboard's columns (the index and the method pages show the same numbers the same way)."""
    return [
        Column("rank", "rank", lambda v: f"{v:.0f}", title="1: the lowest, and every pair tied with it"),
        Column("tie", "tie", title="tied: the data cannot separate it from the lowest (simultaneous 95%)"),
        Column("scheduler", "scheduler", href=lambda r: method_href("scheduler", r["scheduler"], depth)),
        Column("scaler", "scaler", href=lambda r: method_href("scaler", r["scaler"], depth)),
        Column("kind", "causal/offline"),
        Column("error", "WAPE all %", _pct, title="headline measure: mean over workloads"),
        Column("error_lo", "95% lo", _pct), Column("error_hi", "95% hi", _pct),
        Column("ratio", "x lowest", _x, title="error over the lowest pair's"),
        Column("ratio_lo", "ratio lo", _x), Column("ratio_hi", "ratio hi", _x),
        Column("ratio_simul", "simul. bound", _x, title="simultaneous 95% lower bound of the ratio: <= 1 is a tie"),
        Column("p_best", "lowest in % of resamples", _pct),
        Column("coverage", "coverage %", _pct), Column("workloads", "workloads", lambda v: f"{v:.0f}"),
        Column("estimate_seconds", "s per cell", lambda v: f"{v:.3g}", title="the scaler's wall time, median"),
        Column("nulls", "null baselines", title="on the scaler's own best schedule: does it beat the constant rate "
               "and its fill-matched baseline (ratio < 1 is better; 95% paired bootstrap)"),
    ]


def _display(rows: pd.DataFrame) -> pd.DataFrame:
    d = rows.copy()
    d["tie"] = [("lowest" if b else "tied" if t else "") if c else "not ranked"
                for b, t, c in zip(d["best"], d["tied"], d["complete"])]
    d["kind"] = np.where(d["causal"].astype(bool), "causal", "offline")
    return d


CSV_COLUMNS = ("store", "experiment", "family", "set", "pmu", "counters", "settings", "regime", "scheduler",
               "scaler", "causal", "rank", "best", "tied", "complete", "error", "error_lo", "error_hi", "ratio",
               "ratio_lo", "ratio_hi", "ratio_simul", "p_best", "coverage", "workloads", "best_schedule",
               "estimate_seconds", "nulls")


def leaderboard_page(out: Path, rows: pd.DataFrame, have: Sequence[str], stores: Sequence[str]) -> Path:
    """``index.html``: one table per group, filters (family, counters, causal/offline, each scaler on its
    best schedule) shown only with JavaScript; every table and the whole board as CSV."""
    if rows.empty:
        body = ("<p>No store holds scaling results with the headline measure. Stores read: "
                + esc(", ".join(stores)) + ".</p>")
        return write_page(out / "index.html", page("Leaderboard", body, have=have))
    rows = _display(rows)
    write_csv(rows[[c for c in CSV_COLUMNS if c in rows]], out / "csv" / "leaderboard.csv")
    fams = sorted(rows["family"].unique())
    ks = sorted(rows["counters"].unique())
    opts = lambda vals: "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in vals)  # noqa: E731
    intro = (f"<p>Every scheduler+scaler pair of {esc(', '.join(stores))}, ranked per data-set family, PMU, counter "
             "count and read regime on the headline measure (WAPE over every read window, a window without a value "
             "charged; mean over workloads of the mean over seeds) with 95% paired bootstrap intervals over "
             "workloads. <b>Ties are ties</b>: rank 1 is the lowest pair and every pair the data cannot separate "
             "from it allowing for the choice among all pairs (simultaneous 95% lower bound of the ratio &le; 1). "
             'Columns sort on a click. <a href="csv/leaderboard.csv" download>The whole board as CSV</a>.</p>')
    filters = ('<form id="filters" class="filters" hidden>'
               f'<label>family <select data-filter="family"><option value="">all</option>{opts(fams)}</select></label>'
               '<label>counters <select data-filter="counters"><option value="">all</option>'
               f'{opts(ks)}</select></label>'
               '<label>scheduler (the same-schedule view) <select data-filter="scheduler"><option value="">all'
               f'</option>{opts(sorted(rows["scheduler"].unique()))}</select></label>'
               '<label>scalers <select data-filter="kind"><option value="">causal and offline</option>'
               '<option value="causal">causal only</option><option value="offline">offline only</option></select>'
               '</label><label><input type="checkbox" data-filter="best-schedule"> each scaler on its own best '
               "schedule only</label></form>")
    sections = []
    for gid, g in rows.groupby(rows.apply(group_id, axis=1), sort=False):
        r0 = g.iloc[0]
        name = f"{r0['family']} · {r0['pmu']} · {r0['counters']} counters"
        name += f" · {r0['settings']}" if r0["settings"] else ""
        csv = f"csv/leaderboard/{gid}.csv"
        write_csv(g[[c for c in CSV_COLUMNS if c in g]], out / csv)
        tbl = table(g, board_columns(), csv=csv, row_attrs=lambda r: {
            "data-kind": r["kind"], "data-best-schedule": "1" if r["best_schedule"] else "0",
            "data-scheduler": r["scheduler"],
            "data-pair": f"{r['scheduler']}+{r['scaler']}"})
        sections.append(
            f'<section class="group" id="{gid}" data-family="{esc(r0["family"])}" '
            f'data-counters="{esc(r0["counters"])}" data-store="{esc(r0["store"])}" '
            f'data-experiment="{esc(r0["experiment"])}" data-settings="{esc(r0["settings"])}">'
            f"<h2>{esc(name)}</h2><p class=\"meta\">{esc(r0['set'])} workloads: {int(r0['workloads_in_group'])}; "
            f"{esc(r0['regime'])}; {int(r0['pairs'])} ranked pairs; store {esc(r0['store'])}, experiment "
            f"{esc(r0['experiment'])}</p>{tbl}</section>")
    return write_page(out / "index.html", page("Leaderboard", intro + filters + "".join(sections), have=have))


# -- methods ----------------------------------------------------------------------------------------------------

#: the method kinds with a page each: kind → the registry's package
KINDS = {"scaler": "mpx.scalers", "scheduler": "mpx.schedulers", "aligner": "mpx.aligners"}


def _module_doc(cls: type) -> str:
    mod = inspect.getmodule(cls)
    return inspect.cleandoc(mod.__doc__ or "") if mod else ""


def _params(cls: type) -> pd.DataFrame:
    """The class's parameters and their defaults (`mpx.params.Params.get_params` of a default instance)."""
    try:
        params = cls().get_params()
    except Exception as exc:  # a plugin needing arguments: say so instead of guessing
        return pd.DataFrame({"parameter": ["(defaults not readable)"], "default": [f"{type(exc).__name__}: {exc}"]})
    return pd.DataFrame({"parameter": list(params), "default": [repr(v) for v in params.values()]})


def _methods() -> list[tuple[str, str, type]]:
    out = []
    for kind, pkg in KINDS.items():
        reg = importlib.import_module(pkg)
        for name in reg.available():
            out.append((kind, name, reg.get_class(name)))
    return out


def _claims_of(name: str, claims: pd.DataFrame | None) -> pd.DataFrame:
    if claims is None or claims.empty:
        return pd.DataFrame()
    word = r"\b" + re.escape(name).replace("_", "[ _-]?") + r"\b"  # round_robin: "round robin", "round-robin"
    hit = claims["claim"].str.contains(word, case=False, regex=True)
    return claims[hit]


def method_pages(out: Path, rows: pd.DataFrame, have: Sequence[str], claims: pd.DataFrame | None = None,
                 alignment: pd.DataFrame | None = None) -> list[Path]:
    """``methods.html`` and one page per registered scaler, scheduler and aligner: citation, tags, module
    docstring (what mpx checked against the authors' code), parameters, every leaderboard row it has, its
    cost, the claims that name it."""
    written = []
    listing = []
    rows = _display(rows) if not rows.empty else rows
    for kind, name, cls in _methods():
        mine = rows[rows[kind] == name] if not rows.empty and kind in rows else pd.DataFrame()
        listing.append({"kind": kind, "method": name, "source": getattr(cls, "source", "") or "not stated",
                        "groups": int(mine.groupby(["store", "experiment", "family", "pmu", "counters", "settings"])
                                      .ngroups) if len(mine) else 0})
        parts = [f"<p><b>{esc(kind)}</b> <code>{esc(name)}</code>, class <code>{esc(cls.__module__)}."
                 f"{esc(cls.__qualname__)}</code></p>",
                 f"<h2>Source</h2><p>{esc(getattr(cls, 'source', '') or 'not stated in the plugin')}</p>"]
        doc = inspect.cleandoc(cls.__doc__ or "")
        if doc:
            parts.append(f"<p>{esc(doc.split(chr(10) + chr(10))[0])}</p>")
        tags = _tags(kind, name)
        if tags:
            parts.append(f"<p>tags: {esc(', '.join(sorted(tags)))}</p>")
        parts.append("<h2>Parameters</h2>" + frame_table(_params(cls)))
        mdoc = _module_doc(cls)
        if mdoc:
            parts.append("<h2>What mpx implements and checked (the module's documentation)</h2>"
                         f"<details><summary>{esc(mdoc.splitlines()[0])}</summary><pre>{esc(mdoc)}</pre></details>")
        parts.append("<h2>Results everywhere it ran</h2>")
        if len(mine):
            csv = f"csv/methods/{kind}-{slug(name)}.csv"
            write_csv(mine[[c for c in CSV_COLUMNS if c in mine]], out / csv)
            cols = [Column("family", "family", href=lambda r: f"../index.html#{group_id(r)}"), Column("pmu", "PMU"),
                    Column("counters", "counters", lambda v: f"{v:.0f}"), Column("settings", "settings"),
                    *board_columns(depth=1)]
            parts.append('<section class="results">' + table(mine, cols, csv=f"../{csv}", row_attrs=lambda r: {
                "data-pair": f"{r['scheduler']}+{r['scaler']}", "data-group": group_id(r)}) + "</section>")
        elif kind == "aligner" and alignment is not None and not alignment.empty and "method" in alignment:
            a = alignment[alignment["method"] == name]
            parts.append(frame_table(a, digits=4) if len(a) else "<p>Not run in these stores.</p>")
        else:
            parts.append("<p>Not run in these stores.</p>")
        cl = _claims_of(name, claims)
        if len(cl):
            parts.append("<h2>Claims that name it</h2>"
                         + frame_table(cl[["claim", "paper", "mpx", "verdict"]].reset_index()))
        written.append(write_page(out / method_href(kind, name), page(f"{kind} {name}", "".join(parts), depth=1,
                                                                       have=have)))
    lst = pd.DataFrame(listing)
    write_csv(lst, out / "csv" / "methods.csv")
    cols = [Column("kind", "kind"), Column("method", "method", href=lambda r: method_href(r["kind"], r["method"])),
            Column("source", "source"), Column("groups", "leaderboard groups", lambda v: f"{v:.0f}")]
    body = "<p>Every registered scaler, scheduler and aligner, with its source.</p>" + table(lst, cols,
                                                                                              csv="csv/methods.csv")
    written.append(write_page(out / "methods.html", page("Methods", body, have=have)))
    return written


def _tags(kind: str, name: str) -> set[str]:
    reg = importlib.import_module(KINDS[kind])
    registry = getattr(reg, "REGISTRY", None)
    try:
        return set(registry.tags(name)) if registry is not None else set()
    except Exception:  # a plugin without tags has none to show
        return set()


# -- data sets --------------------------------------------------------------------------------------------------


def literal(v: Any) -> Any:
    """A manifest value stored as Python text (some entries are ``repr`` of a dict) as the value."""
    if isinstance(v, str) and v[:1] in "{[(":
        try:
            return ast.literal_eval(v)
        except (ValueError, SyntaxError):
            return v
    return v


def dataset_facts(name: str) -> dict[str, Any]:
    """What the manifest says of a shipped dataset: program, simulator, fast-forward, dump period, span,
    events; empty for a name it does not know."""
    from mpx.datasets import shipped

    try:
        e = shipped.entry(name)
    except (KeyError, LookupError, FileNotFoundError, ValueError):
        return {}
    recipe = literal(e.get("recipe")) or {}
    trace = literal(e.get("trace")) or {}
    rec = literal(e.get("recording")) or {}
    sim = recipe.get("simulator", "callgrind")
    skipped = rec.get("skipped", {}) if isinstance(rec, dict) else {}
    if sim == "gem5":
        period = f"{recipe.get('period_ps', 0) / 1e6:g} us of simulated time ({rec.get('period_cycles', '?')} cycles)"
        ff = (f"{skipped.get('fast_forward_insts', 0):,} instructions on {skipped.get('fast_forward_cpu', '?')}, then "
              f"{skipped.get('warmup_insts', 0):,} of warm-up" if skipped.get("fast_forward_insts") else "none")
    else:
        period = f"every {recipe.get('interval_bb', '?'):,} basic blocks (callgrind --dump-every-bb)"
        ff = "none (from the program's first instruction)"
    span = trace.get("span") or [None, None]
    events = trace.get("events") or []
    return {"description": e.get("description", ""), "program": " ".join(map(str, recipe.get("program", []))),
            "simulator": sim, "collection": shipped.collection(e), "fast-forward": ff, "dump period": period,
            "intervals": trace.get("intervals"),
            "span": f"{span[0]:,.0f} .. {span[1]:,.0f} {trace.get('time_unit', '')}" if None not in span else "?",
            "events": events, "behaviour": e.get("behaviour", ""),
            "tools": ", ".join(f"{k} {v}" for k, v in (e.get("tools") or {}).items())}


def dataset_pages(out: Path, rows: pd.DataFrame, used: dict[str, list[str]], have: Sequence[str],
                  series_events: dict[str, list[str]] | None = None) -> list[Path]:
    """``datasets.html`` and a page per dataset the stores used (``used``: name → the experiments that used it):
    the manifest's facts, a timeline of the trace (`mpx.site.timeline`), where it is used."""
    from mpx.datasets import shipped
    from mpx.site.timeline import pick_events, timeline_svg

    written, listing = [], []
    for name in sorted(used):
        facts = dataset_facts(name)
        href = f"datasets/{slug(name)}.html"
        listing.append({"dataset": name, "simulator": facts.get("simulator", "?"),
                        "collection": facts.get("collection", "?"), "intervals": facts.get("intervals"),
                        "experiments": ", ".join(used[name]), "href": href})
        if not facts:
            body = "<p>Not a shipped dataset (the manifest does not list it): no facts to show.</p>"
        else:
            events = facts.pop("events")
            kv = pd.DataFrame({"": list(facts), "value": [str(v) for v in facts.values()]})
            body = frame_table(kv)
            try:
                trace = shipped.load(name)
                shown = pick_events(trace, (series_events or {}).get(name, ()))
                body += f"<h2>Timeline</h2><figure>{timeline_svg(trace, shown)}</figure>"
            except Exception as exc:  # a trace not on this machine (held-out, git-ignored): said, not drawn
                body += f"<p>No timeline: the trace could not be read here ({esc(type(exc).__name__)}: {esc(exc)}).</p>"
            body += (f"<h2>Events ({len(events)})</h2><details><summary>the recorded events</summary><p>"
                     f"{esc(', '.join(map(str, events)))}</p></details>")
        groups = rows[rows["family"].notna()] if not rows.empty else rows
        body += "<h2>Where it is used</h2><ul>" + "".join(f"<li>experiment {esc(x)}</li>" for x in used[name]) + "</ul>"
        if len(groups):
            body += "<p>Its family's leaderboard groups: " + ", ".join(
                f'<a href="../index.html#{group_id(r)}">{esc(r["family"])} · {esc(r["pmu"])} · '
                f'{esc(r["settings"]) or "-"}</a>'
                for _, r in groups.drop_duplicates(["store", "experiment", "family", "pmu", "counters", "settings"])
                .iterrows() if r["family"] == _family_of(name)) + "</p>"
        written.append(write_page(out / href, page(f"data set {name}", body, depth=1, have=have)))
    lst = pd.DataFrame(listing)
    if len(lst):
        write_csv(lst.drop(columns="href"), out / "csv" / "datasets.csv")
        cols = [Column("dataset", "data set", href=lambda r: r["href"]), Column("simulator", "simulator"),
                Column("collection", "collection"), Column("intervals", "intervals", lambda v: f"{v:.0f}"),
                Column("experiments", "used by")]
        body = table(lst, cols, csv="csv/datasets.csv")
    else:
        body = "<p>No data sets in these stores.</p>"
    written.append(write_page(out / "datasets.html", page("Data sets", body, have=have)))
    return written


def _family_of(name: str) -> str:
    from mpx.site.leaderboard import family

    return family(name)
