"""A route module importing the backend plainly: thread-free only once zz_quiet has imported it."""

import thread_unless_quiet  # noqa: F401
