"""Every error the suite reports to its user, in one hierarchy.

A :class:`ConformanceError` is input the suite cannot work with (a case file, an option, an
adapter, a results file ...), never a defect of the suite itself: its message says what is
wrong and where (file and line where there is one), and each front door catches the base class
once: ``conformance`` prints it and exits with status 2, the pytest plugin turns it into a
usage error. Anything else that escapes is a bug and keeps its traceback.

Subclasses name the kind of input at fault, so a caller that wants to handle one kind (a
script merging results files, say) can catch just that one.
"""

from __future__ import annotations


class ConformanceError(Exception):
    """Input the suite cannot use; the message is meant for the user as it stands."""


class UsageError(ConformanceError):
    """Arguments or options that cannot be used: a malformed ``--shard``, an unknown op, an adapter
    option no adapter knows, a selection that matches nothing."""


class CorpusError(ConformanceError):
    """A case file or a certification profile that cannot be loaded."""


class PluginError(ConformanceError):
    """An adapter that cannot be found, constructed or trusted; the message names it."""


class KnownIssuesError(ConformanceError):
    """A known-issues file that cannot be used; names the file and the entry."""


class ResultsFileError(ConformanceError):
    """A results file (or journal, or certificate) that cannot be read, resumed or combined."""


class JournalError(ResultsFileError):
    """A journal that cannot be resumed; says why."""


class MergeError(ResultsFileError):
    """Results files that cannot be merged into one; names the files at fault."""


class CertifyError(ConformanceError):
    """A certification that cannot be made or checked as asked (no such route, no results ...)."""


class WorkerStartError(ConformanceError):
    """Workers that die before their first job, again and again: the environment they start in
    cannot run the suite (its main script cannot be imported again, a broken install); the
    message says how they ended."""
