"""Stage 3, the results contract: the result type, the results file, JUnit output, and the
analyses over results files that need no HTML (merge, diff, version comparison). It sits below
:mod:`conformance.run`, which produces these results.
"""
