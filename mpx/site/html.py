"""The site's HTML: one page layout, tables readable without JavaScript, each with the CSV behind it.

Every table is a plain ``<table>``; a numeric cell carries its full-precision value in ``data-v`` (the
vendored ``site.js`` sorts on it, the browser test compares it with the store) and shows it rounded. Each
table's CSV is written beside the pages (``csv/<name>.csv``) from the same DataFrame, so the download and
the page cannot disagree. Nothing here computes a number.
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path
from typing import Any, Callable, Sequence

import pandas as pd

from mpx.experiment.store import write_atomic

__all__ = ["NAV", "Column", "esc", "frame_table", "page", "slug", "table", "write_csv", "write_page"]


def esc(x: Any) -> str:
    """``x`` as HTML text (quotes escaped too: it also goes into attributes)."""
    return html.escape("" if x is None else str(x), quote=True)


def slug(text: str) -> str:
    """A file-name-safe form of ``text`` (lower case, ``a-z0-9`` and dashes; never empty)."""
    s = re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")
    return s or "x"


class Column:
    """One column of `table`: the DataFrame ``key``, its header, how a value is shown (``fmt``), and
    optionally a link (``href``: row → URL) and a tooltip."""

    def __init__(self, key: str, header: str, fmt: Callable[[Any], str] | None = None,
                 href: Callable[[pd.Series], str | None] | None = None, title: str = "") -> None:
        self.key, self.header, self.fmt, self.href, self.title = key, header, fmt, href, title


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _cell(col: Column, row: pd.Series) -> str:
    v = row.get(col.key)
    missing = v is None or (isinstance(v, float) and not math.isfinite(v))
    text = "n/a" if missing else (col.fmt(v) if col.fmt else str(v))
    attr = f' data-v="{float(v)!r}"' if _is_num(v) and not missing else ""
    body = esc(text)
    url = col.href(row) if col.href else None
    if url:
        body = f'<a href="{esc(url)}">{body}</a>'
    return f"<td{attr}>{body}</td>"


def table(df: pd.DataFrame, columns: Sequence[Column], *, csv: str | None = None, caption: str = "",
          row_attrs: Callable[[pd.Series], dict[str, str]] | None = None, cls: str = "sortable") -> str:
    """``df`` as an HTML table of ``columns`` (in ``df``'s row order), a caption, and a link to ``csv``
    (a path relative to the page) when given."""
    head = "".join(f'<th scope="col"{f" title={chr(34)}{esc(c.title)}{chr(34)}" if c.title else ""}>'
                   f"{esc(c.header)}</th>" for c in columns)
    rows = []
    for _, r in df.iterrows():
        attrs = "".join(f' {k}="{esc(v)}"' for k, v in (row_attrs(r) if row_attrs else {}).items())
        rows.append(f"<tr{attrs}>" + "".join(_cell(c, r) for c in columns) + "</tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    link = f'<p class="csv"><a href="{esc(csv)}" download>CSV of this table</a></p>' if csv else ""
    return (f'<table class="{cls}">{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            f"{link}")


def frame_table(df: pd.DataFrame, *, csv: str | None = None, caption: str = "", digits: int = 2) -> str:
    """A DataFrame as a `table` of every column (its index as the first columns); floats to ``digits``."""
    flat = df.reset_index() if not isinstance(df.index, pd.RangeIndex) else df.copy()
    flat.columns = [" / ".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in flat.columns]

    def fmt(v: Any) -> str:
        return f"{v:.{digits}f}" if isinstance(v, float) else str(v)

    return table(flat, [Column(c, c, fmt) for c in flat.columns], csv=csv, caption=caption)


def write_csv(df: pd.DataFrame, path: Path) -> None:
    """``df`` as CSV at ``path`` (written whole or not at all), its index kept unless it is a plain range."""
    path.parent.mkdir(parents=True, exist_ok=True)
    keep = not isinstance(df.index, pd.RangeIndex)
    write_atomic(path, lambda tmp: df.to_csv(tmp, index=keep))


NAV = (("index.html", "Leaderboard"), ("methods.html", "Methods"), ("datasets.html", "Data sets"),
       ("claims.html", "Claims"), ("verdicts.html", "Verdicts"), ("timescale.html", "Time scales"))


def page(title: str, body: str, *, depth: int = 0, have: Sequence[str] = ()) -> str:
    """A whole page: the navigation (only to pages that exist, ``have``), ``body``, the vendored CSS and JS.
    ``depth``: folders below the site's root (links are relative, so the site works from ``file://``)."""
    up = "../" * depth
    nav = " ".join(f'<a href="{up}{href}">{esc(name)}</a>' for href, name in NAV if href in have)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{esc(title)} - mpx</title>"
            f"<link rel=\"stylesheet\" href=\"{up}static/site.css\"></head><body>"
            f"<header><strong>mpx</strong> {nav}</header><main><h1>{esc(title)}</h1>{body}</main>"
            "<footer>Generated by <code>mpx site</code> from results stores; every number is read from them. "
            f"Static: no server, nothing fetched.</footer><script src=\"{up}static/site.js\"></script></body></html>\n")


def write_page(path: Path, text: str) -> Path:
    """Write one page (whole or not at all)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return path
