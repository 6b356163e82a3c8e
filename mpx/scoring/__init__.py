"""Scoring against the truth: the error measures (`measures`), `score(estimate, trace)` (`score`), one replay scored with several scalers (`scalers`), and schedulers' own figures (`schedules`)."""
