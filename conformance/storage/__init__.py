"""Stage 4's files: the journal that makes a run resumable, the output folder (and its lock),
each worker's scratch folder, and the shards a run is split into across machines.
"""
