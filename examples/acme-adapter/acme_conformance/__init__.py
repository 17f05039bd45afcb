"""Split-conformance adapter for ACME's split kernels (entry point ``acme``)."""

from __future__ import annotations

from acme_conformance.adapter import AcmeAdapter

__all__ = ["AcmeAdapter"]
