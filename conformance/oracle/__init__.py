"""Stage 2, the oracle: the reference semantics written from the spec documents, the bit-exact
comparison of outputs, the judging of what a backend did against the reference's answer, and
the check of the corpus's own expectations against that answer.
"""
