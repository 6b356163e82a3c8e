"""An example third-party plugin package for mpx: `scaler.CarryScaler` (``example_carry``),
`scheduler.ReverseRoundRobin` (``example_reverse``) and `figure.FIGURE` (``example_coverage``), each found by
mpx through its entry point in ``pyproject.toml``; ``tests/`` runs mpx's conformance checks on each."""
