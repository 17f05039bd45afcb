"""Stage 4's front door, a whole run: planning it, executing it on the engine and writing its
results, resuming it, and the reproducers attached to findings. It wires loading, engine, verdict
and storage together.
"""
