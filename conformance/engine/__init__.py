"""Stage 4's engine: executing items in isolated worker processes. A pool of slots, each a worker
spawned or forked from the zygote; one item (and its runs) in a worker, with who raised what;
the deaths of workers, the phase a worker is in, memory limits of large items, the progress line
and the sample that prices it, stopping on a signal, the terminal's streams, and the engine's
settings. It knows nothing of known issues, the crash review or the results file.
"""
