"""Traces to score: the shipped real workloads and their rebuild recipes (`shipped`, whose API this package
re-exports: ``from mpx import datasets; datasets.load(name)``), and synthetic traces with known structure
(`synthetic`)."""

from mpx.datasets.shipped import *  # noqa: F401,F403
