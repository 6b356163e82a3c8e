"""The plugins pass mpx's conformance checks, one test item per check (`mpx.conformance.parametrize_with_checks`)."""

from mpx.conformance import parametrize_with_checks
from mpx_example_plugin.figure import FIGURE
from mpx_example_plugin.scaler import CarryScaler
from mpx_example_plugin.scheduler import ReverseRoundRobin


@parametrize_with_checks("scaler", [CarryScaler, CarryScaler(fill="none")])
def test_scaler_conforms(check):
    check()


@parametrize_with_checks("scheduler", [ReverseRoundRobin])
def test_scheduler_conforms(check):
    check()


@parametrize_with_checks("figure", [FIGURE])
def test_figure_conforms(check):
    check()
