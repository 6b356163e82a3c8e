"""Multiplexing schedulers, by name: ``mpx.schedulers.get("perf")``, ``available()``.

Built-in schedulers are listed in `BUILTIN` (name → ``"module:Class"``, imported on first use). Other
packages add schedulers without touching mpx through the entry-point group ``mpx.schedulers``; in
their ``pyproject.toml``::

    [project.entry-points."mpx.schedulers"]
    mine = "my_package.my_module:MyScheduler"

A scheduler is a subclass of `mpx.schedulers.base.StaticScheduler` or
`mpx.schedulers.base.OnlineScheduler` (read that module's docstring). An entry point named like a
built-in is an error naming both; `register` adds one at run time (notebooks, tests). How to write, register
and check one: ``docs/extending.md``.

``get("round_robin", packing="first_fit")`` is a new scheduler *instance* built with those
hyper-parameters (a name the class does not take is a `~mpx.errors.ConfigError` listing those it does);
``get_class(name)`` is the class, ``available()`` every name (`mpx.registry`).
"""

from __future__ import annotations

from mpx.registry import Registry

__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "REGISTRY", "available", "get", "get_class", "register", "unregister"]

#: built-in schedulers: name → "module:Class"
BUILTIN: dict[str, str] = {
    "perf": "mpx.schedulers.perf:PerfScheduler",
    "round_robin": "mpx.schedulers.round_robin:RoundRobinScheduler",
    "likwid": "mpx.schedulers.likwid:LikwidScheduler",
    "arm_topdown": "mpx.schedulers.arm_topdown:ArmTopdownScheduler",
    "hperf": "mpx.schedulers.hperf:HperfScheduler",
    "tintin": "mpx.schedulers.tintin:TintinScheduler",
    "bayesperf": "mpx.schedulers.bayesperf:BayesPerfScheduler",
    "optimal": "mpx.schedulers.optimal:OptimalScheduler",
    "hypergraph": "mpx.schedulers.hypergraph:HypergraphScheduler",
    "fusion_aware": "mpx.schedulers.fusion_aware:FusionAwareScheduler",
}

ENTRY_POINT_GROUP = "mpx.schedulers"

#: the schedulers: built-ins, run-time registrations, entry points
REGISTRY = Registry("scheduler", ENTRY_POINT_GROUP, BUILTIN, protocol="mpx.schedulers.base:Scheduler")

available, get, get_class, register, unregister = REGISTRY.verbs()
