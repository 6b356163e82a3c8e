"""Event groups by hypergraph partitioning under the counter cap (`partitioned`), and the partitioning instances that compare partitioners (`instances`)."""
