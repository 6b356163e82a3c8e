"""Every registered plugin of every kind passes every conformance check of its kind: one test item per
(kind × name × check), from `mpx.conformance.suites`. A plugin registered before collection (the toy
plugins of ``tests/plugins``) is checked like a built-in."""

from __future__ import annotations

import pytest

from mpx.conformance.suites import SUITES, cases, registry, run_check


@pytest.mark.parametrize("kind, name, check", [pytest.param(*c, id="-".join(c)) for c in cases()])
def test_registered_plugin_conforms(kind, name, check):
    run_check(kind, name, check)


@pytest.mark.parametrize("kind", list(SUITES))
def test_every_kind_has_plugins_and_checks(kind):
    assert registry(kind).available()
    assert any(k == kind for k, _, _ in cases([kind]))
