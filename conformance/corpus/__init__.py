"""Stage 1, the corpus: the case model, the YAML case files and their loader, the deterministic
data fills, the op catalogue (which op can express which case) and the selection of items.

Nothing here knows what a spec answers or how a backend runs; it only says what is asked.
"""
