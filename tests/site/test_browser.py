"""The site in a real browser: headless Chromium (Debian's ``chromium`` and ``chromium-driver``) driven by
selenium, pointed at the system binaries (a tool's own browser download does not work offline). Opens every
page from ``file://``, checks that none logs a console error, that every internal link resolves, that the
leaderboard's rows are in the rendered DOM with the store's numbers, that sorting and the filters work,
and takes the screenshot of the leaderboard the README shows. Skips with the reason when no browser is
installed (``.ci/run`` installs one).

``MPX_SITE_STORES="results/gem5_quickstart results/quickstart"`` builds the site from those stores instead of
the small one made here; ``MPX_SITE_SCREENSHOT=docs/leaderboard.png`` keeps the screenshot there.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.site._parse import links
from tests.site.test_site import _store_means

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,900")


def _binaries() -> tuple[str, str]:
    browser = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    driver = shutil.which("chromedriver") or next((p for p in ("/usr/lib/chromium/chromedriver",) if
                                                    Path(p).is_file()), None)
    if browser is None or driver is None:
        pytest.skip("no headless browser: apt-get install -y chromium chromium-driver (Debian) "
                    f"(chromium: {browser or 'missing'}, chromedriver: {driver or 'missing'})")
    return browser, driver


@pytest.fixture(scope="module")
def driver():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    from selenium.webdriver.chrome.service import Service

    browser, chromedriver = _binaries()
    os.environ.setdefault("SE_OFFLINE", "true")  # never let selenium's manager fetch a browser or a driver
    profile = tempfile.mkdtemp(prefix="mpx-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for f in (*FLAGS, f"--user-data-dir={profile}"):
        opts.add_argument(f)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        d = webdriver.Chrome(service=Service(chromedriver), options=opts)
    except Exception as exc:  # a browser that cannot start here (no display libraries, a mismatched driver)
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"headless chromium did not start: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def site(small_site, tmp_path_factory):
    """(the stores, their names, the site): the small store of the conftest, or ``MPX_SITE_STORES``."""
    from mpx.site import build_site
    from mpx.site.build import store_names

    given = os.environ.get("MPX_SITE_STORES", "").split()
    if not given:
        return [small_site[0]], ["small"], small_site[1]
    out = tmp_path_factory.mktemp("site-given")
    build_site(given, out)
    return given, store_names(given), out


def _open(d, path: Path) -> None:
    """Load a page and wait until it is parsed and its script ran (``get`` can return on a file:// page
    before the new document is complete); a generous bound: a slow machine waits, it does not fail."""
    from selenium.webdriver.support.ui import WebDriverWait

    d.get(path.as_uri())
    WebDriverWait(d, 60).until(lambda drv: drv.execute_script("return document.readyState") == "complete")


def _errors(d) -> list[str]:
    return [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]


def test_every_page_loads_without_console_errors_and_its_links_resolve(driver, site):
    _, _, out = site
    pages = sorted(out.rglob("*.html"))
    assert len(pages) >= 5
    for page in pages:
        _open(driver, page)
        assert _errors(driver) == [], page
        hrefs = driver.execute_script("return Array.from(document.querySelectorAll('a[href]'), a => a.href)")
        for href in hrefs:
            u = urlsplit(href)
            assert u.scheme == "file", f"{page}: {href} leaves the site"
            target = Path(unquote(u.path))
            assert target.is_file(), f"{page}: {href}"
            if u.fragment:
                assert u.fragment in links(target).ids, f"{page}: {href}"
    assert driver.execute_script("return document.styleSheets.length") >= 1


def test_the_leaderboard_rows_are_rendered_with_the_store_numbers(driver, site):
    from mpx.experiment.store import open_store
    from mpx.site import leaderboard_rows

    paths, names, out = site
    stores = [open_store(p) for p in paths]
    try:
        rows = leaderboard_rows(stores, names)
    finally:
        for s in stores:
            s.close()
    truth = _store_means(Path(paths[0])) if names == ["small"] else None
    _open(driver, out / "index.html")
    rendered = driver.execute_script("""
        return Array.from(document.querySelectorAll('section.group'), s => ({
          store: s.dataset.store, experiment: s.dataset.experiment, settings: s.dataset.settings,
          id: s.id, rows: Array.from(s.querySelectorAll('tbody tr'), r => ({pair: r.dataset.pair,
            error: r.cells[5].dataset.v, text: r.cells[5].textContent, lo: r.cells[6].dataset.v,
            hi: r.cells[7].dataset.v, ratio: r.cells[8].dataset.v, shown: r.offsetParent !== null}))}))""")
    assert sum(len(g["rows"]) for g in rendered) == len(rows) > 0
    for g in rendered:
        part = rows[(rows["store"] == g["store"]) & (rows["experiment"] == g["experiment"])
                    & (rows["settings"] == g["settings"])]
        for r in g["rows"]:
            assert r["shown"], (g["id"], r["pair"])  # in the rendered page, not only in the source
            sched, scaler = r["pair"].split("+")
            expect = part[(part["scheduler"] == sched) & (part["scaler"] == scaler)]
            assert len(expect) == 1, (g["id"], r["pair"])  # a pair appears once per group
            e = expect.iloc[0]
            if e["error"] != e["error"]:  # no value on some workload: no number shown, not ranked
                assert r["error"] is None and r["text"] == "n/a"
                continue
            assert float(r["error"]) == e["error"] and r["text"] == f"{100 * e['error']:.2f}"
            assert float(r["lo"]) == e["error_lo"] and float(r["hi"]) == e["error_hi"]
            if truth is not None:
                assert float(r["error"]) == pytest.approx(truth[(g["experiment"], g["settings"], sched, scaler)],
                                                          rel=1e-12, abs=0)


def test_sorting_and_filters_work_in_the_browser(driver, site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _, _, out = site
    _open(driver, out / "index.html")
    table = driver.find_element(By.CSS_SELECTOR, "section.group table")
    col = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")].index("WAPE all %")

    def column() -> list[float]:
        return [float(v) for v in driver.execute_script(
            "return Array.from(arguments[0].tBodies[0].rows, r => r.cells[arguments[1]].dataset.v)", table, col)
            if v is not None]

    header = table.find_elements(By.CSS_SELECTOR, "thead th")[col]
    header.click()
    up = column()
    assert up == sorted(up) and len(up) >= 2
    header.click()
    down = column()
    assert down == sorted(up, reverse=True)
    assert header.get_attribute("aria-sort") == "descending"
    # the filters appear with JavaScript only; "causal only" hides every offline row
    form = driver.find_element(By.ID, "filters")
    assert form.is_displayed()
    Select(form.find_element(By.CSS_SELECTOR, '[data-filter="kind"]')).select_by_value("causal")
    kinds = driver.execute_script("return Array.from(document.querySelectorAll('tbody tr[data-kind]'), "
                                  "r => [r.dataset.kind, r.offsetParent !== null])")
    assert any(k == "offline" for k, _ in kinds), "the test needs an offline scaler"
    assert all(shown == (k == "causal") for k, shown in kinds)
    Select(form.find_element(By.CSS_SELECTOR, '[data-filter="kind"]')).select_by_value("")
    # the same-schedule view: one scheduler's rows only
    Select(form.find_element(By.CSS_SELECTOR, '[data-filter="scheduler"]')).select_by_value("perf")
    shown = driver.execute_script("return Array.from(document.querySelectorAll('tbody tr[data-scheduler]'), "
                                  "r => [r.dataset.scheduler, r.offsetParent !== null])")
    assert any(s == "perf" for s, _ in shown) and all(v == (s == "perf") for s, v in shown)
    Select(form.find_element(By.CSS_SELECTOR, '[data-filter="scheduler"]')).select_by_value("")
    assert _errors(driver) == []


def test_screenshot_of_the_leaderboard(driver, site, tmp_path):
    _, _, out = site
    _open(driver, out / "index.html")
    shot = tmp_path / "leaderboard.png"
    assert driver.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep = os.environ.get("MPX_SITE_SCREENSHOT")
    if keep:  # the README's picture: the browser's screenshot, reduced to a 64-colour palette to stay small
        from PIL import Image

        Path(keep).parent.mkdir(parents=True, exist_ok=True)
        Image.open(shot).convert("RGB").quantize(colors=64).save(keep, optimize=True)
