"""Hypothesis profiles of the fuzz tests: ``suite`` (the default) keeps them quick and the same on every run;
``soak`` (``HYPOTHESIS_PROFILE=soak``) runs each input type ten thousand times and more, to be run by hand."""

import os

from hypothesis import HealthCheck, settings

_SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("suite", max_examples=200, deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=_SLOW_DATA)
settings.register_profile("soak", max_examples=10_000, deadline=None, print_blob=True, database=None,
                          suppress_health_check=_SLOW_DATA)  # no example database left in the working tree
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))
