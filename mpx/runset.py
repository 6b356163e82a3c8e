"""Moved to `mpx.recording.runset`; this alias of the public path is kept for one release."""

from mpx.recording.runset import *  # noqa: F401,F403
