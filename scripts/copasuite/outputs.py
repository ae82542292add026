"""Output paths checked before any work starts, so that a run of many minutes does not end in an
unwritable directory: a bad --out is a bad input (exit 2) reported at once."""
import os
import tempfile

from .errors import InputError


def check_output_dir(path, option):
    """Raises InputError unless `path` is a writable directory or can be created as one. Nothing is
    created: the nearest existing ancestor must be a directory that accepts a new file (a real write,
    since permission bits say nothing for root or a read-only mount)."""
    target = os.path.abspath(path)
    existing = target
    while not os.path.exists(existing):
        parent = os.path.dirname(existing)
        if parent == existing:
            break
        existing = parent
    if not os.path.isdir(existing):
        what = "is not a directory" if existing == target else f"cannot be created: {existing} is not a directory"
        raise InputError(f"{option}: {path} {what}")
    try:
        fd, probe = tempfile.mkstemp(dir=existing, prefix=".copa-write-check-")
        os.close(fd)
        os.remove(probe)
    except OSError as e:
        raise InputError(f"{option}: {path} is not writable ({existing}: {e.strerror})") from None


def check_output_file(path, option):
    """Raises InputError unless the file `path` can be written (its directory as in check_output_dir)."""
    if os.path.isdir(path):
        raise InputError(f"{option}: {path} is a directory, expected a file name")
    check_output_dir(os.path.dirname(os.path.abspath(path)), option)
