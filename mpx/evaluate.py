"""Moved to `mpx.scoring.score`; this alias of the public path is kept for one release."""

from mpx.scoring.score import *  # noqa: F401,F403
