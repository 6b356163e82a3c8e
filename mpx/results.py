"""Moved to `mpx.experiment.store`; this alias of the public path is kept for one release."""

from mpx.experiment.store import *  # noqa: F401,F403
