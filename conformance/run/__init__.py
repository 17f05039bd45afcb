"""Stage 4, running: the adapter registry, planning a run, executing items in isolated worker
processes, the journal that makes a run resumable, progress, sharding, known issues and the
reproducers attached to findings.
"""
