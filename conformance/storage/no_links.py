"""No symbolic link is followed inside an output folder.

CI systems share output folders between jobs, and a pull request can plant a link in one: a
``.lock``, ``workers`` or ``previous`` that points elsewhere would make the suite truncate, move
or delete files it never wrote. So every file and folder the suite writes or deletes below an
output folder is reached through real folders and opened with ``O_NOFOLLOW``, and a link found
is refused by name (a usage error). The output folder itself is the user's choice of path, links
and all.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from conformance.errors import UsageError


def refusal(path: Path, out: Path, option: str = "--out") -> UsageError:
    """The error for a symbolic link found at ``path`` in the output folder ``out``."""
    return UsageError(
        f"{option} {out}: {path} is a symbolic link; the suite follows no link in its output folder, "
        f"so that it never writes or deletes files elsewhere: remove the link or give another {option}"
    )


def refuse_link(path: Path, out: Path, option: str = "--out") -> None:
    """Refuse (UsageError) ``path`` when it is a symbolic link (a missing path is fine)."""
    if path.is_symlink():
        raise refusal(path, out, option)


def check_below(out: Path, path: Path, option: str = "--out") -> None:
    """Refuse a link at ``path`` or at any folder between ``out`` and it; the first missing one
    ends the check (what is missing is created by the suite, as a real folder)."""
    current = out
    for name in path.relative_to(out).parts:
        current = current / name
        refuse_link(current, out, option)
        if not current.exists():
            return


def folder(out: Path, path: Path, option: str = "--out") -> Path:
    """Create ``path`` and the folders between ``out`` and it, each a real folder (a link
    refused); returns ``path``."""
    current = out
    out.mkdir(parents=True, exist_ok=True)
    for name in path.relative_to(out).parts:
        current = current / name
        try:
            current.mkdir()
        except FileExistsError:  # mkdir never follows a link: one planted there lands here
            refuse_link(current, out, option)
            if not current.is_dir():
                raise UsageError(
                    f"{option} {out}: {current} is a file where the suite keeps a folder"
                ) from None
    return path


def open_file(out: Path, path: Path, flags: int, mode: int = 0o644, option: str = "--out") -> int:
    """``os.open`` of ``path`` below ``out`` following no link: none among its folders, none at
    ``path`` itself (``O_NOFOLLOW``, so that ``O_CREAT`` or ``O_TRUNC`` never reach elsewhere)."""
    check_below(out, path.parent, option)
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as error:
        if error.errno == errno.ELOOP or path.is_symlink():
            raise refusal(path, out, option) from None
        raise
