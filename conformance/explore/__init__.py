"""``conformance explore``: requests drawn from each op's parameter space, judged against the
reference on every selected target, each disagreement shrunk to a minimal request and written
back as a YAML case ready for the corpus.
"""
