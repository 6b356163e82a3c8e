"""The one configuration object of a partitioner run (`Context`) and the balance constraints it implies.

Mirrors KaHyPar's ``Context``/``.ini`` split into phases; defaults follow ``km1_kKaHyPar_sea20.ini``
where the same knob exists (contraction limit t = 160, s = 1, cmaxnet = 1000, heavy-edge rating without
penalty, community-aware coarsening, recursive initial partitioning with t = 150, adaptive FM stopping
with α = 1; see `Context` for the two measured departures). Policies are chosen by name; names are resolved through the phase registries at run time, so
an unknown name is a `ConfigError` naming the key.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from mpx.errors import ConfigError


@dataclass
class CommunityConfig:
    """Community detection before coarsening (KaHyPar's ``p-detect-communities``, Heuer & Schlag SEA 2017)."""

    algorithm: str = "louvain"          #: "louvain" or "none"
    edge_weight: str = "hybrid"         #: bipartite-graph edge weights: uniform, non_uniform, degree, hybrid
    max_passes: int = 100               #: local-moving rounds per Louvain level
    min_improvement: float = 1e-4       #: stop a level when modularity improves less than this
    max_net_size: int = 1000            #: larger nets are left out of the bipartite graph


@dataclass
class CoarseningConfig:
    """Multilevel coarsening (KaHyPar ``c-*`` keys)."""

    algorithm: str = "ml_style"          #: "ml_style" (many clusters per level) or "none"
    contraction_limit_multiplier: int = 160   #: t: stop at t·k vertices
    max_vertex_weight_multiplier: float = 1.0  #: s: coarse vertices weigh at most s·c(V)/(t·k)
    heavy_node_penalty: str = "none"     #: "none" or "multiplicative" (divide the rating by c(u)·c(v))
    max_net_size: int = 1000             #: nets with more pins are ignored when rating (KaHyPar cmaxnet)
    use_communities: bool = True         #: contract only inside a community
    min_shrink: float = 1.01             #: stop when a level shrinks the vertex count by less than this
    max_shrink: float = 2.5              #: a level stops clustering once it reached n / max_shrink vertices


@dataclass
class RefinementConfig:
    """Local search while uncoarsening (KaHyPar ``r-*`` keys)."""

    algorithms: tuple[str, ...] = ("label_propagation", "fm")   #: run in this order at every level
    fm_stop: str = "simple"              #: "adaptive" (random-walk model) or "simple" (fruitless moves)
    fm_alpha: float = 1.0                #: α of the adaptive rule
    fm_max_fruitless: int = 1000         #: moves without improvement for the simple rule
    fm_max_passes: int = 20              #: FM passes per level at most (passes also stop without gain)
    fm_allow_overload: bool = True       #: allow overload-then-repair move pairs (swaps under tight caps)
    lp_max_rounds: int = 5               #: label-propagation rounds per level at most


def _default_ip_coarsening() -> CoarseningConfig:
    return CoarseningConfig(contraction_limit_multiplier=150)


def _default_ip_refinement() -> RefinementConfig:
    return RefinementConfig(algorithms=("fm",), fm_stop="simple", fm_max_fruitless=50)


@dataclass
class InitialConfig:
    """Initial partitioning of the coarsest hypergraph (KaHyPar ``i-*`` keys).

    ``recursive_bisection`` bisects recursively; each bisection is itself multilevel (coarsening with
    ``coarsening``, a flat ``pool`` of ``runs`` runs per algorithm each refined with ``refinement``, best
    feasible kept) — KaHyPar's ``i-mode=recursive``. ``pool`` runs the flat portfolio directly k-way.
    ``portfolio`` (default) is recursive bisection, plus the direct k-way pool on inputs of at most
    ``direct_max_vertices`` vertices, keeping the better.
    """

    algorithm: str = "portfolio"         #: "portfolio", "recursive_bisection", "pool" or "none"
    pool: tuple[str, ...] = ("greedy_growing", "bfs", "label_propagation", "random", "bin_packing")
    runs: int = 20                       #: runs of every pool algorithm (KaHyPar ``i-runs``)
    min_runs: int = 10                   #: runs on tiny inputs (see ``full_runs_size``)
    full_runs_size: int = 300            #: below this many vertices, runs shrink in proportion (0 = never)
    direct_max_vertices: int = 500       #: ``portfolio`` also tries direct k-way up to this many vertices
    coarsening: CoarseningConfig = field(default_factory=_default_ip_coarsening)
    refinement: RefinementConfig = field(default_factory=_default_ip_refinement)


@dataclass
class Context:
    """Everything a partitioner run depends on: the request (k, ε or caps, seed) and every phase's policy.

    ``max_block_weights`` (one cap per block) replaces ε when given. ``vcycles`` re-runs the multilevel cycle
    that many times, coarsening only inside the blocks of the current partition and keeping it when it is
    not worse (KaHyPar's ``vcycles``). ``repetitions`` runs the whole multilevel cycle that many times from
    one seeded stream and keeps the best feasible result (before the V-cycles): a time-for-quality knob for
    small inputs, where one cycle takes milliseconds (event grouping).

    Defaults differ from ``km1_kKaHyPar_sea20.ini`` in two places, both measured on ibm01
    (``experiments/analyses/partition_quality.py``): FM stops after 1000 fruitless moves (the adaptive rule stopped
    this multilevel-style FM too early: +3–5 % km1 at k = 8) and 4 V-cycles run by default.
    """

    k: int = 2
    epsilon: float = 0.03
    seed: int = 0
    max_block_weights: Sequence[int] | None = None
    community: CommunityConfig = field(default_factory=CommunityConfig)
    coarsening: CoarseningConfig = field(default_factory=CoarseningConfig)
    initial: InitialConfig = field(default_factory=InitialConfig)
    refinement: RefinementConfig = field(default_factory=RefinementConfig)
    vcycles: int = 4
    repetitions: int = 1

    def replace(self, **changes: Any) -> "Context":
        """A copy with some top-level fields changed."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        """Plain-data form (for result provenance and JSON)."""
        d = dataclasses.asdict(self)
        if d["max_block_weights"] is not None:
            d["max_block_weights"] = [int(x) for x in d["max_block_weights"]]
        return d

    def validate(self) -> None:
        """Check the numeric parameters (names are checked by the registries when used)."""
        _check_int(self.k, "k", 1)
        if not (isinstance(self.epsilon, (int, float)) and math.isfinite(self.epsilon) and self.epsilon >= 0):
            raise ConfigError(f"epsilon must be a finite number >= 0, got {self.epsilon!r}")
        _check_int(self.seed, "seed", 0)
        _check_int(self.vcycles, "vcycles", 0)
        _check_int(self.repetitions, "repetitions", 1)
        for prefix, c in (("coarsening", self.coarsening), ("initial.coarsening", self.initial.coarsening)):
            _check_int(c.contraction_limit_multiplier, f"{prefix}.contraction_limit_multiplier", 1)
            _check_pos(c.max_vertex_weight_multiplier, f"{prefix}.max_vertex_weight_multiplier")
            _check_int(c.max_net_size, f"{prefix}.max_net_size", 2)
            if not c.min_shrink >= 1.0 or not c.max_shrink > 1.0:
                raise ConfigError(f"{prefix}.min_shrink must be >= 1 and max_shrink > 1")
            if c.heavy_node_penalty not in ("none", "multiplicative"):
                raise ConfigError(f"{prefix}.heavy_node_penalty: expected 'none' or 'multiplicative', "
                                  f"got {c.heavy_node_penalty!r}")
        for prefix, r in (("refinement", self.refinement), ("initial.refinement", self.initial.refinement)):
            if r.fm_stop not in ("adaptive", "simple"):
                raise ConfigError(f"{prefix}.fm_stop: expected 'adaptive' or 'simple', got {r.fm_stop!r}")
            _check_pos(r.fm_alpha, f"{prefix}.fm_alpha")
            _check_int(r.fm_max_fruitless, f"{prefix}.fm_max_fruitless", 1)
            _check_int(r.fm_max_passes, f"{prefix}.fm_max_passes", 1)
            _check_int(r.lp_max_rounds, f"{prefix}.lp_max_rounds", 1)
            if isinstance(r.algorithms, str):
                raise ConfigError(f"{prefix}.algorithms must be a sequence of names, got the string {r.algorithms!r}")
        _check_int(self.initial.runs, "initial.runs", 1)
        _check_int(self.initial.min_runs, "initial.min_runs", 1)
        _check_int(self.initial.full_runs_size, "initial.full_runs_size", 0)
        _check_int(self.initial.direct_max_vertices, "initial.direct_max_vertices", 0)
        if isinstance(self.initial.pool, str) or not self.initial.pool:
            raise ConfigError(f"initial.pool must be a non-empty sequence of names, got {self.initial.pool!r}")
        if self.community.edge_weight not in ("uniform", "non_uniform", "degree", "hybrid"):
            raise ConfigError(f"community.edge_weight: expected uniform, non_uniform, degree or hybrid, "
                              f"got {self.community.edge_weight!r}")
        _check_int(self.community.max_passes, "community.max_passes", 1)


def _check_int(value: Any, key: str, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ConfigError(f"{key} must be an integer >= {minimum}, got {value!r}")


def _check_pos(value: Any, key: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{key} must be a finite number > 0, got {value!r}")


@dataclass(frozen=True)
class Constraints:
    """The balance constraint of one partitioning request: k, a maximum weight per block, fixed vertices.

    ``fixed[v]`` is the block vertex v must end in, or −1 when it is free.
    """

    k: int
    max_block_weights: np.ndarray
    fixed: np.ndarray

    @property
    def has_fixed(self) -> bool:
        return bool(np.any(self.fixed >= 0))

    @property
    def movable(self) -> np.ndarray:
        return self.fixed < 0


def max_block_weight(total_weight: int, k: int, epsilon: float) -> int:
    """KaHyPar's L_max = ⌊(1 + ε)·⌈c(V)/k⌉⌋, computed exactly (ε is read as the decimal it prints as)."""
    perfect = -(-int(total_weight) // int(k))
    return int(math.floor((1 + Fraction(repr(float(epsilon)))) * perfect))


def build_constraints(total_weight: int, vertex_weights: np.ndarray, k: int, epsilon: float,
                      max_block_weights: Sequence[int] | np.ndarray | None = None,
                      fixed: Sequence[int] | np.ndarray | None = None) -> Constraints:
    """Validate a request and turn it into `Constraints`; an infeasible request is a `ConfigError`.

    Infeasible means: caps summing below c(V), a free vertex heavier than every cap, fixed vertices whose
    weight exceeds their block's cap. (Passing these checks does not prove feasibility — bin packing is
    NP-hard — so the partitioner still refuses to return a partition that violates a cap.)
    """
    _check_int(k, "k", 1)
    n = vertex_weights.size
    if max_block_weights is None:
        if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon >= 0):
            raise ConfigError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
        caps = np.full(k, max_block_weight(total_weight, k, epsilon), dtype=np.int64)
    else:
        raw = np.asarray(max_block_weights)
        if raw.ndim != 1 or raw.size != k:
            raise ConfigError(f"max_block_weights must list one weight per block ({k}), got shape {raw.shape}")
        if raw.size and not (np.issubdtype(raw.dtype, np.integer)
                             or (np.issubdtype(raw.dtype, np.floating) and np.all(raw == np.round(raw)))):
            raise ConfigError(f"max_block_weights must be integers, got {raw.tolist()[:5]}")
        caps = raw.astype(np.int64)
        if caps.size and caps.min() < 0:
            raise ConfigError(f"max_block_weights: block {int(np.argmin(caps))} has a negative cap {int(caps.min())}")
    if int(caps.sum()) < total_weight:
        raise ConfigError(f"infeasible: the block caps sum to {int(caps.sum())} < total vertex weight {total_weight}")
    if fixed is None:
        fixed_arr = np.full(n, -1, dtype=np.int64)
    else:
        fixed_arr = np.asarray(fixed)
        if fixed_arr.ndim != 1 or fixed_arr.size != n:
            raise ConfigError(f"fixed must give one block (or -1) per vertex ({n}), got shape {fixed_arr.shape}")
        if fixed_arr.size and not np.issubdtype(fixed_arr.dtype, np.integer):
            raise ConfigError(f"fixed must hold integer block ids (-1 = free), got dtype {fixed_arr.dtype}")
        fixed_arr = fixed_arr.astype(np.int64)
        if fixed_arr.size and (fixed_arr.min() < -1 or fixed_arr.max() >= k):
            bad = int(np.flatnonzero((fixed_arr < -1) | (fixed_arr >= k))[0])
            raise ConfigError(f"fixed[{bad}] = {int(fixed_arr[bad])} is not a block id in [0, {k}) or -1")
    free = fixed_arr < 0
    if np.any(free) and caps.size:
        heaviest = int(vertex_weights[free].max())
        if heaviest > int(caps.max()):
            v = int(np.flatnonzero(free)[np.argmax(vertex_weights[free])])
            raise ConfigError(f"infeasible: vertex {v} weighs {heaviest}, more than every block cap "
                              f"(largest {int(caps.max())})")
    if not free.all():
        fixed_w = np.bincount(fixed_arr[~free], weights=vertex_weights[~free], minlength=k).astype(np.int64)
        over = np.flatnonzero(fixed_w > caps)
        if over.size:
            b = int(over[0])
            raise ConfigError(f"infeasible: the vertices fixed to block {b} weigh {int(fixed_w[b])} > its cap "
                              f"{int(caps[b])}")
    caps.flags.writeable = False
    fixed_arr.flags.writeable = False
    return Constraints(int(k), caps, fixed_arr)
