"""A package that starts a thread when imported (as OpenVINO does), with a module of its own that
starts none once the package is in: a worker that imports that module later finds it thread-free."""

import thread_at_import  # noqa: F401  # the thread
