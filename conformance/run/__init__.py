"""Stage 4's front door, a whole run: planning it (:mod:`.planning`), executing the plan on the
engine and writing its results (:mod:`.runner`), resuming an interrupted one (:mod:`.resumption`)
and the reproducers attached to findings (:mod:`.reproducers`). It wires the four packages of the
stage: :mod:`conformance.loading` -> :mod:`conformance.engine` -> :mod:`conformance.verdict`, with
:mod:`conformance.storage` under the engine.
"""
