"""The public site: a static, browsable view of results stores (``mpx site STORE... --out DIR``).

`build_site` writes ``index.html`` (the leaderboard: `mpx.site.leaderboard.leaderboard_rows`), a page per
method and per data set (`mpx.site.pages`), the claims, verdict and time-scale study pages where the stores
hold their rows (`mpx.site.studies`), a CSV beside every table, and the vendored ``static/site.js`` (sorting
and filters; every table reads without it) and ``static/site.css``. Nothing is fetched at view time: open
``DIR/index.html`` from disk or copy ``DIR`` to any static host.
"""

from __future__ import annotations

from mpx.site.build import build_site
from mpx.site.leaderboard import leaderboard_rows

__all__ = ["build_site", "leaderboard_rows"]
