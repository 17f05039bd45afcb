"""Every error the suite reports to its user, in one hierarchy, and its exit statuses.

A :class:`ConformanceError` is input the suite cannot use (a case file, an option, an adapter, a
results file ...), never a defect of the suite: its message says what is wrong and where, and each
front door catches the base class once (``conformance`` exits 2, the pytest plugin raises a usage
error). Anything else that escapes is a bug and keeps its traceback. Subclasses name the kind of
input at fault, so a caller can catch just one kind.
"""

from __future__ import annotations

import enum
import errno
import textwrap


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
    """Workers that die before their first job, again and again (a broken install, a main script
    that cannot be imported again); the message says how they ended."""


class EnvironmentFailure(Exception):
    """The machine stopped a verb (disk full, out of memory, an output folder not writable). Not a
    ConformanceError, which would blame the input: the verb ends with :attr:`Exit.ENVIRONMENT`."""


#: the errors (by errno) that are the machine's, not the input's
_MACHINE = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOMEM: "out of memory",
    errno.EMFILE: "too many open files",
    errno.EIO: "an input/output error",
}


def machine_failure(error: BaseException) -> str | None:
    """What the machine did, when ``error`` is its failure rather than the suite's or the input's:
    every verb ends with :attr:`Exit.ENVIRONMENT` on one (the front door's boundary), and a writer
    that tells the input's faults from the machine's asks here, so that a read-only or full
    destination is 4 for every verb, never 2."""
    if isinstance(error, MemoryError):
        return "out of memory (MemoryError: the machine or an address-space limit refused an allocation)"
    if isinstance(error, EnvironmentFailure):
        return str(error)
    if isinstance(error, OSError) and error.errno in _MACHINE:
        where = f" writing {error.filename}" if error.filename else ""
        return f"{_MACHINE[error.errno]}{where} ({error.strerror or error})"
    return None


class Exit(enum.IntEnum):
    """Every exit status of the command line, one meaning each for every verb (:data:`EXIT_MEANINGS`),
    so a CI job can branch on it. A stopping signal ends a verb with 128 + the signal."""

    GREEN = 0
    FINDINGS = 1
    USAGE = 2
    DEFECTS = 3
    ENVIRONMENT = 4
    NOT_COMPARABLE = 5


#: what each stopping signal ends a verb with (128 + the signal, as a shell reports it)
SIGNAL_EXITS: dict[str, int] = {"SIGINT": 130, "SIGTERM": 143, "SIGHUP": 129}

#: what each exit status means, as ``--help`` and docs/results.md say it (and each verb: :data:`BY_VERB`)
EXIT_MEANINGS: dict[int, str] = {
    Exit.GREEN: "done, and nothing unexplained found",
    Exit.FINDINGS: "done, with findings",
    Exit.USAGE: "unusable input: an option, a case file, an adapter, a results file, an output "
    "folder holding others' files",
    Exit.DEFECTS: "an adapter or the suite failed on an item: no verdict on the backend",
    Exit.ENVIRONMENT: "the machine stopped the verb (disk full, out of memory, a folder not "
    "writable); what finished is in the journal",
    Exit.NOT_COMPARABLE: "the two runs cannot be compared (a side interrupted, different "
    "selections, known issues on one side only)",
    **{
        code: f"stopped by {name}: what finished is written (a run's results marked interrupted); "
        "it prints how to go on"
        for name, code in SIGNAL_EXITS.items()
    },
}
#: what exit statuses 0 and 1 mean for each verb, where it says more than "done"
BY_VERB: dict[tuple[str, int], str] = {
    ("validate", 1): "the corpus has defects (listed)",
    ("run", 0): "green: the whole selection was judged, every result pass, xfail or unsupported",
    ("run", 1): "an unexplained finding (fail, error, crash, timeout, xpass), or nothing judged",
    ("explore", 1): "a disagreement that is no known issue",
    ("adapters", 1): "an installed adapter cannot be loaded, or a route of the default run cannot load "
    "its backend (a module it declares fails to import)",
    ("diff", 0): "no new failure, and the two runs compare",
    ("diff", 1): "a new failure: an item failing in NEW that did not fail in OLD",
    ("merge", 1): "merged, but incomplete (a shard missing, a run interrupted)",
    ("certify", 0): "certified (or the certificate verifies)",
    ("certify", 1): "not certified (or the certificate does not verify)",
}
#: the exit statuses of each verb, in the order its ``--help`` lists them
VERB_EXITS: dict[str, tuple[int, ...]] = {
    verb: (*codes, 4, *SIGNAL_EXITS.values())
    for verb, codes in {
        "validate": (0, 1, 2),
        "list": (0, 2),
        "run": (0, 1, 2, 3),
        "explore": (0, 1, 2),
        "adapters": (0, 1, 2),
        "report": (0, 2),
        "diff": (0, 1, 2, 5),
        "merge": (0, 1, 2),
        "versions": (0, 2),
        "compat": (0, 2),
        "certify": (0, 1, 2, 3),
    }.items()
}


def exit_table(verb: str) -> list[tuple[int, str]]:
    """The exit statuses ``verb`` can end with, and what each means for it."""
    return [(code, BY_VERB.get((verb, code), EXIT_MEANINGS[code])) for code in VERB_EXITS[verb]]


def exit_epilog(verb: str) -> str:
    """The exit statuses of ``verb``, for its ``--help``."""
    rows = (
        textwrap.fill(meaning, 96, initial_indent=f"  {code:>3}  ", subsequent_indent=" " * 7)
        for code, meaning in exit_table(verb)
    )
    return "exit status:\n" + "\n".join(rows)


def exit_markdown() -> str:
    """The exit statuses of every verb as the Markdown table docs/results.md holds."""
    rows = ["| status | meaning | verbs |", "| --- | --- | --- |"]
    for code, meaning in EXIT_MEANINGS.items():
        verbs = [verb for verb, codes in VERB_EXITS.items() if code in codes]
        own = [f"`{verb}`: {BY_VERB[(verb, code)]}" for verb in verbs if (verb, code) in BY_VERB]
        said = "; ".join([meaning, *own])
        rows.append(f"| {code} | {said} | {', '.join(f'`{verb}`' for verb in verbs)} |")
    return "\n".join(rows)
