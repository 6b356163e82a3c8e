"""Internal utilities every floor may use: number formatting, progress bars, the numba rule."""
