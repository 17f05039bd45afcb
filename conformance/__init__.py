"""A conformance suite for the Split family of tensor operators.

The package holds the engine: the case model and loader, the reference semantics written from
the specs, the op catalogue, and the command line. Backends plug in as adapters through the
``conformance.adapters`` entry-point group.
"""

__version__ = "0.1.0"
