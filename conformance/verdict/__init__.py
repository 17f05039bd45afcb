"""Stage 4's verdict policy over what the engine reported: known issues turn a finding into an
expected failure, and the crash review reruns dead workers' items before any is called a crash.
"""
