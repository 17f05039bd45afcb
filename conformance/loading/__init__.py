"""Stage 4's adapter loading: finding adapters by entry point or import path (:mod:`.registry`)
and checking their methods against the protocol once, when loaded (:mod:`.hooks`).
"""
