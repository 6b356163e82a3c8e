"""``mpx partition``: partition an hMetis hypergraph (km1 objective) and print km1, cut, imbalance, seconds."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "partition",
        help="partition an hMetis .hgr hypergraph into k blocks minimising km1 (KaHyPar-style multilevel)",
        description="Partition a hypergraph in hMetis format (.hgr, optionally compressed) into k blocks "
        "minimising the connectivity metric km1 = sum of w(e)*(lambda(e)-1), with every block weighing at most "
        "(1+eps)*ceil(c(V)/k), or at most --cap. Prints km1, cut, imbalance and seconds.",
    )
    p.add_argument("path", metavar="FILE.hgr", help="hypergraph in hMetis format")
    p.add_argument("-k", type=int, required=True, help="number of blocks")
    p.add_argument("-e", "--epsilon", type=float, default=0.03, help="allowed imbalance (default 0.03)")
    p.add_argument("--cap", type=int, help="maximum weight of every block instead of epsilon (e.g. counters per group)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--vcycles", type=int, default=0, help="extra V-cycles (default 0)")
    p.add_argument("-o", "--output", help="write the block of every vertex, one per line (hMetis .part format)")
    p.add_argument("--json", action="store_true", help="print the result (and what each phase did) as JSON")


def run(args: argparse.Namespace) -> int:
    import json

    from mpx.errors import ConfigError
    from mpx.partition import Context, partition, read_hmetis

    if args.k < 1:
        raise ConfigError(f"-k must be >= 1, got {args.k}")
    if args.seed < 0:
        raise ConfigError(f"--seed must be >= 0, got {args.seed}")
    hg = read_hmetis(args.path)
    caps = None if args.cap is None else [args.cap] * args.k
    res = partition(hg, args.k, epsilon=args.epsilon, seed=args.seed, max_block_weights=caps,
                    context=Context(vcycles=args.vcycles))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write("\n".join(map(str, res.blocks.tolist())) + ("\n" if hg.num_vertices else ""))
    if args.json:
        print(json.dumps({"file": str(args.path), "vertices": hg.num_vertices, "nets": hg.num_nets,
                          **res.to_dict()}, indent=1))
    else:
        print(f"{args.path}: {hg.num_vertices} vertices, {hg.num_nets} nets, k={args.k}")
        print(f"km1        {res.km1}")
        print(f"cut        {res.cut}")
        print(f"imbalance  {res.imbalance:.4f}  (heaviest block {int(res.block_weights.max())}, "
              f"cap {int(res.max_block_weights.max())})")
        print(f"seconds    {res.seconds:.3f}")
    return 0
