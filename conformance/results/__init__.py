"""Stage 3, the results contract: the result type, the results file (its typed form, and the one
module that reads and writes it), JUnit output, and the analyses over results files that need
no HTML: merging shards, the run-to-run diff, the backend-version comparison.

The executor produces these results, so this package sits below :mod:`conformance.run`.
"""
