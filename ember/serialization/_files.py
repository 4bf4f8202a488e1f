"""File handling shared by ember.save's formats: atomic writes to paths."""
from __future__ import annotations

import contextlib
import os
import secrets


def is_file_object(f, method: str) -> bool:
    """Whether `f` is a file object (has `method`) rather than a path."""
    return not isinstance(f, (str, bytes, os.PathLike)) and hasattr(f, method)


def write_atomically(path: str, write) -> None:
    """Calls `write(out)` on a temporary file in the target's directory, syncs it to disk
    and renames it over the target (following a symlink to it), so a failed save leaves
    the old file; special files such as /dev/null are written in place."""
    path = os.path.realpath(path)
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "wb") as out:
            write(out)
        return
    temp = f"{path}.{secrets.token_hex(4)}.tmp"
    try:  # created like open(path, "wb") would (mode 0o666 less the umask), but never reused
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                     0o666)
    except OSError as e:  # (a missing or read-only directory): name the file asked for
        raise type(e)(e.errno, e.strerror, path) from None
    try:
        with open(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
