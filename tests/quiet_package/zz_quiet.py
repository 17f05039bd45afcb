"""The backend imported with its thread turned off (named to sort after ``route``)."""

import importlib
import os

os.environ["THREAD_UNLESS_QUIET"] = "1"  # read once, as the backend loads
try:
    backend = importlib.import_module("thread_unless_quiet")
finally:
    del os.environ["THREAD_UNLESS_QUIET"]
