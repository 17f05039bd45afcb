"""The backend imported with its thread turned off (named to sort after ``route``)."""

from conformance.plugin import import_with_environment

backend = import_with_environment("thread_unless_quiet", {"THREAD_UNLESS_QUIET": "1"})
