"""``mpx run CONFIG``: compute an experiment's grid into a results store, resumably.

The work is `mpx.experiment.run_experiment` (grid, cache, process pool or Dask) writing into
`mpx.experiment.store.ResultsStore`; this module parses arguments, exports CSV (and Parquet), prints the
summary tables (`mpx.studies.report`) and draws the figures the config lists under ``[output] figures``.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run an experiment config (TOML) into a results store; resumable",
        description="Expand an experiment config into its grid of cells and compute the cells not yet in the "
        "results store OUT/results.sqlite (one transaction per finished cell: a killed run resumes where it "
        "stopped). Then export OUT/csv/, print the summary tables and draw the config's figures into "
        "OUT/figures/.",
    )
    p.add_argument("config", help="experiment config (TOML), e.g. experiments/quickstart.toml, or a suite of configs "
                   "run into one store (a TOML with a [suite] table, e.g. experiments/claims.toml)")
    p.add_argument("--out", metavar="DIR", help="output folder (default: results/<experiment name>)")
    p.add_argument("--jobs", "-j", type=int, metavar="N",
                   help="worker processes, each with one BLAS thread (default: the usable CPUs; 1 computes every "
                   "cell in this process, for debugging)")
    p.add_argument("--dask-scheduler", metavar="ADDRESS",
                   help="run the cells on a Dask distributed scheduler (tcp://host:port) instead")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-figures", action="store_true", help="do not draw the config's figures")
    p.add_argument("--dry-run", action="store_true", help="print the number of cells (and how many are cached)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from mpx.experiment.config import load_config_or_suite

    read = load_config_or_suite(args.config)  # the TOML parsed once
    if not isinstance(read, tuple):
        return run_one(args, args.config, Path(args.out) if args.out else None, exp=read)
    name, configs = read
    out = Path(args.out) if args.out else Path("results") / name
    for config in configs:  # one store: `mpx report OUT` reads every experiment of the suite
        print(f"==== suite {name}: {config}")
        code = run_one(args, str(config), out, suite=True)
        if code:
            return code
    return 0


def run_one(args: argparse.Namespace, config: str, out: Any, suite: bool = False, exp: Any = None) -> int:
    """Run one experiment config into ``out`` (default ``results/<experiment name>``); a store that already
    holds other experiments is said in one line (a suite's configs share one store on purpose); ``exp``: the
    config already read (`mpx.experiment.config.Experiment`), else it is read here."""
    import time
    from pathlib import Path

    from mpx.experiment import load_config, run_experiment
    from mpx.experiment.runner import usable_cpus
    from mpx.experiment.store import ResultsStore

    t0 = time.perf_counter()
    exp = load_config(config) if exp is None else exp
    out = Path(out) if out else Path("results") / exp.name
    cells = exp.cells()
    check_figures(exp.output.get("figures", []), config)  # before any cell runs
    if args.dry_run:  # writes nothing: no folder, no store
        path = out / "results.sqlite"
        if not path.is_file():
            print(f"{exp.name}: {len(cells)} cells, none yet ({path} does not exist)")
            return 0
        with ResultsStore(path, read_only=True) as store:
            cached = len({c["key"] for c in cells} & store.finished_keys())
        print(f"{exp.name}: {len(cells)} cells, {cached} already in {path}")
        return 0
    with ResultsStore(out / "results.sqlite") as store:
        others = [e for e in dict.fromkeys(store.experiments()) if e != exp.name]
        if others and not suite:
            print(_fit(f"note: {store.path} already holds experiment(s) {', '.join(others)}; {exp.name} is added "
                       f"beside them (mpx report {out} --experiment NAME for one; {out / 'csv'} holds this run's "
                       "export only)"))
        jobs = usable_cpus() if args.jobs is None else args.jobs
        counts = run_experiment(exp, store, jobs=jobs, dask_scheduler=args.dask_scheduler,
                                progress=not args.no_progress, cells=cells)
        figs = exp.output.get("figures", []) if not args.no_figures else []
        figures = draw_aside(store, figs, out / "figures", exp.name, jobs)
        files = store.export(out / "csv", experiment=exp.name)
        stale = [out / "csv" / f"{t}.{ext}" for t in ("cells", *store.tables()) for ext in ("csv", "parquet")]
        for p in stale:  # a table another experiment exported here and this one has no rows of
            if p not in files and p.is_file():
                p.unlink()
        print(_fit(f"{exp.name}: {counts['cells']} cells ({counts['cached']} cached, {counts['computed']} computed, "
                   f"{counts['skipped']} skipped, {counts['errors']} with errors) in {time.perf_counter() - t0:.1f} s; "
                   f"store {store.path}, export {out / 'csv'} ({len(files)} files)"))
        if exp.output.get("summary", True):
            from mpx.studies.report import summary_text

            print(summary_text(store, exp.name, wide_dir=out / "tables"))  # tables over 120 columns: files
        if figs:
            written = figures()
            print(_fit(f"figures in {out / 'figures'}: {', '.join(Path(p).name for p in written)}"))
    print(f"total {time.perf_counter() - t0:.1f} s")
    return 0


def draw_aside(store: Any, figs: list[str], out_dir: Any, experiment: str, jobs: int) -> Any:
    """Start drawing the figures ``figs`` of ``store`` in a forked process, beside the export and the summary
    that follow (about 3 s of the quickstart's tail each); returns the function that waits for the files.
    With ``jobs`` 1 (debugging: one process) or no ``fork`` on this platform they are drawn when it is called.
    The child reads its own read-only connection and trusts the checksums of the cells this run just wrote."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from mpx.experiment.runner import die_with_parent
    from mpx.figures import draw

    if not figs:
        return list
    if jobs == 1 or "fork" not in multiprocessing.get_all_start_methods():
        return lambda: draw(store, figs, out_dir, experiment=experiment)
    import os

    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"), initializer=die_with_parent,
                               initargs=(os.getpid(),))
    future = pool.submit(_draw_from, str(store.path), sorted(store.written), figs, str(out_dir), experiment)

    def wait() -> list:
        # shut down here, after the result: shutdown(wait=False) at submit left the executor's wake-up pipe
        # closed under Python's exit handler ("OSError: Bad file descriptor" printed after a run)
        try:
            return future.result()
        finally:
            pool.shutdown(wait=True)

    return wait


def _draw_from(path: str, checked: list[str], figs: list[str], out_dir: str, experiment: str) -> list:
    """`draw_aside`'s child: the figures from a read-only connection of its own."""
    from mpx.experiment.store import ResultsStore
    from mpx.figures import draw

    with ResultsStore(path, read_only=True, checked=checked) as store:
        return draw(store, figs, out_dir, experiment=experiment)


def _fit(line: str) -> str:
    """``line`` wrapped to the 120 columns the command's output keeps (paths are never broken)."""
    import textwrap

    return textwrap.fill(line, 120, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)


def check_figures(names: Any, config: str) -> None:
    """``[output] figures``: names of registered figures (a typo fails before the run, not after it)."""
    from mpx.errors import ConfigError
    from mpx.figures import available

    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ConfigError(f"{config}: [output] figures must be a list of figure names")
    bad = [n for n in names if n not in available()]
    if bad:
        raise ConfigError(f"{config}: [output] figures: unknown figure(s) {bad}; figures: {', '.join(available())}")
