"""Recording ground truth: callgrind runs of a real program, gem5 runs in syscall emulation, repeated runs for trace alignment (run sets), and the supervision of the recorded program."""
