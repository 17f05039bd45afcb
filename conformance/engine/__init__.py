"""Stage 4's engine: executing items in isolated worker processes, spawned or forked from the
zygote, and what a run needs around them (deaths, phases, memory, progress, signals, streams).
It knows nothing of known issues, the crash review or the results file.
"""
