"""Moved to `mpx.aligners.measure`; this alias of the public path is kept for one release."""

from mpx.aligners.measure import *  # noqa: F401,F403
