"""Test configuration: Hypothesis profiles.

``dev`` (the default) explores more examples; ``ci`` (loaded when the environment variable
``CI`` is set, as CI does) runs fewer, reproducible examples so the whole suite fits in a few
minutes on two cores. Choose one by hand with ``HYPOTHESIS_PROFILE=dev|ci``. The fuzz tests
(test_fuzz.py) run a multiple of the profile's examples: a few hundred in all under ``ci``;
``RULELANG_FUZZ_SCALE=10`` runs ten times as many.

The parser tables Lark works out are kept for the session in a folder of its own (the tests'
``rulelang`` subprocesses load them from there), not in the user's cache.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev",
    max_examples=60,
    deadline=None,  # a first parse builds the LALR tables; timings of one example vary widely
)
settings.register_profile(
    "ci",
    max_examples=14,  # the whole suite in about 7 minutes on two slow cores (a worker each)
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

if "RULELANG_PARSER_CACHE" not in os.environ:
    os.environ["RULELANG_PARSER_CACHE"] = _cache = tempfile.mkdtemp(prefix="rulelang-tests-")
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)
