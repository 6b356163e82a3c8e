"""Moved to `mpx.scoring.scalers`; this alias of the public path is kept for one release."""

from mpx.scoring.scalers import *  # noqa: F401,F403
