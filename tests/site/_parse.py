"""Reading the generated pages back with the standard library's HTML parser (no browser): the leaderboard's
groups, rows and cells, and every link of a page."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Board(HTMLParser):
    """``groups``: per ``<section class="group">`` (the leaderboard) or ``"results"`` (a method page) its
    attributes and rows; a row is its attributes and its
    cells, each ``(header, data-v or None, text)``."""

    def __init__(self) -> None:
        super().__init__()
        self.groups: list[dict] = []
        self.headers: list[str] = []
        self._cell: list | None = None
        self._th: list | None = None
        self._row: dict | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "section" and (a.get("class") or "") in ("group", "results"):
            self.groups.append({"attrs": a, "rows": []})
            self.headers = []
        elif tag == "th" and self.groups:
            self._th = []
        elif tag == "tr" and self.groups and "data-pair" in a:
            self._row = {"attrs": a, "cells": []}
        elif tag == "td" and self._row is not None:
            self._cell = [a.get("data-v"), []]

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[1].append(data)
        elif self._th is not None:
            self._th.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "th" and self._th is not None:
            self.headers.append("".join(self._th).strip())
            self._th = None
        elif tag == "td" and self._cell is not None and self._row is not None:
            header = self.headers[len(self._row["cells"])]
            self._row["cells"].append((header, self._cell[0], "".join(self._cell[1]).strip()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.groups[-1]["rows"].append(self._row)
            self._row = None


class Links(HTMLParser):
    """Every ``href`` and ``src`` of a page, and every ``id``."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list) -> None:
        for k, v in attrs:
            if k in ("href", "src") and v:
                self.links.append(v)
            if k == "id" and v:
                self.ids.add(v)


def board(path: Path) -> Board:
    b = Board()
    b.feed(path.read_text(encoding="utf-8"))
    return b


def links(path: Path) -> Links:
    p = Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def broken_links(site: Path) -> list[str]:
    """Every internal link of every page of ``site`` whose file (and ``#fragment``) does not exist."""
    bad = []
    ids: dict[Path, set[str]] = {}
    for page in sorted(site.rglob("*.html")):
        for href in links(page).links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                bad.append(f"{page}: external link {href}")  # the site fetches nothing
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.is_file():
                bad.append(f"{page}: {href} (no file)")
                continue
            if parts.fragment:
                if target not in ids:
                    ids[target] = links(target).ids
                if parts.fragment not in ids[target]:
                    bad.append(f"{page}: {href} (no id {parts.fragment})")
    return bad
