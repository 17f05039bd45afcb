"""Stage 4's verdict policy over what the engine reported: known issues turn a finding into an
expected failure, the crash review reruns dead workers' items before any is called a crash, and
a run ends GREEN or RED with its exit status (:mod:`conformance.verdict.exit_status`).
"""
