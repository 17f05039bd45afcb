"""Apache TVM adapter for the split-conformance suite (entry point ``tvm``).

Importing this package is cheap: TVM (about 3 s to import) is loaded only in the workers, when the
adapter first builds or compiles, so ``conformance adapters`` lists adapters without loading it.
"""

from __future__ import annotations

from conformance_tvm.adapter import TvmAdapter

__all__ = ["TvmAdapter"]
