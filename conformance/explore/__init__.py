"""``conformance explore``: requests drawn from each op's parameter space, judged against the
reference on every selected target, each disagreement shrunk to a minimal request and written
back as a YAML case ready for the corpus.

``space`` holds the strategies, ``search`` one op's Hypothesis rounds, ``generated`` the ids,
titles and corpus index of generated cases, ``writing`` the case files of the findings and
``session`` the whole verb (adapters, pool, journal, budget, results file).
"""
