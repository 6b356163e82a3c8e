"""LaTeX tables of results (booktabs, no jinja2): what `mpx report --latex` prints."""

from __future__ import annotations

from typing import Any

__all__ = ["to_latex"]


def _tex(x: Any) -> str:
    s = str(x)
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"),
                 ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\^{}")):
        s = s.replace(a, b) if a != "\\" else s.replace(a, "\0")
    return s.replace("\0", r"\textbackslash{}")


def to_latex(df: Any, caption: str, label: str) -> str:
    """A booktabs table (no jinja2 needed): index as the first column(s), NaN as an em dash; a text column
    with values over 40 characters is a wrapping paragraph column (kept whole)."""
    import math

    import numpy as np

    idx_names = [n or "" for n in df.index.names]
    head = [*idx_names, *map(str, df.columns)]
    # a text column with long values (skip reasons are sentences) is a paragraph column that wraps
    spec = "".join(r"p{0.45\linewidth}" if df[c].map(lambda v: isinstance(v, str) and len(v) > 40).any() else "r"
                   for c in df.columns)
    lines = [r"\begin{table}[htbp]", r"\centering", r"\small",
             r"\begin{tabular}{" + "l" * len(idx_names) + spec + "}", r"\toprule",
             " & ".join(_tex(h) for h in head) + r" \\", r"\midrule"]
    for idx, *row in df.itertuples(index=True, name=None):  # per-column types kept (iterrows makes ints floats)
        idx = idx if isinstance(idx, tuple) else (idx,)
        cells = []
        for v in row:
            if isinstance(v, (bool, np.bool_)):
                cells.append(_tex(v))
            elif isinstance(v, (int, np.integer)):
                cells.append(f"{int(v):,}")
            elif isinstance(v, (float, np.floating)):
                cells.append("---" if not math.isfinite(v) else f"{v:.2f}" if abs(v) < 1e4 else f"{v:,.0f}")
            else:
                cells.append(_tex(v))
        lines.append(" & ".join([*(_tex(i) for i in idx), *cells]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_tex(caption)}}}", rf"\label{{{label}}}",
              r"\end{table}"]
    return "\n".join(lines)
