"""The PMU model: which counters exist and which events may go on which counter.

- `mpx.pmu.model`: `PMU` (units, fixed and generic counters, masks, reserved counters; the TOML schema);
- `mpx.pmu.units`: `Counter`, `Unit`, `UncountableEventError`;
- `mpx.pmu.placement`: the two placement rules (perf's greedy, exact bipartite matching), used by
  `PMU.assign` and by `mpx.problem.Problem.fits`;
- `mpx.pmu.perfjson`: perf pmu-events JSON — the ``Counter`` field parser and mask import;
- `mpx.pmu.presets`: the presets and `resolve_pmu` (a preset name or a PMU TOML file);
- `mpx.pmu.namespace`: whose events a name is (Intel, Arm, gem5, callgrind), for the foreign-events warning;
- `mpx.pmu.files` (TOML reading, checked keys) and `mpx.pmu.describe` (the text table of `PMU.describe`).
"""

from mpx.pmu.model import PMU
from mpx.pmu.perfjson import CounterField, parse_counter_field
from mpx.pmu.placement import place_greedy, place_matching
from mpx.pmu.presets import is_preset, preset, presets, resolve_pmu
from mpx.pmu.units import FIXED, GENERIC, KINDS, Counter, UncountableEventError, Unit

__all__ = ["FIXED", "GENERIC", "KINDS", "PMU", "Counter", "CounterField", "UncountableEventError", "Unit",
           "is_preset", "parse_counter_field", "place_greedy", "place_matching", "preset", "presets", "resolve_pmu"]
