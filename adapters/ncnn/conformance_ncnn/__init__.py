"""ncnn adapter for the split-conformance suite (entry point ``ncnn``).

Importing this package is cheap: ncnn's library and torch are loaded only in the workers, and the
pnnx converter only ever runs as a child process.
"""

from __future__ import annotations

from conformance_ncnn.adapter import NcnnAdapter

__all__ = ["NcnnAdapter"]
