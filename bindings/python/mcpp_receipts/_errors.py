"""What the exception classes made in C (errors.c) need from Python.

OSError pickles only its constructor arguments: errno, strerror and filename,
set on a FileError after it is made, were lost on the way to a worker process
and back. FileError.__reduce__ carries them.
"""
from __future__ import annotations

from typing import Any

from . import _core


def _rebuild_file_error(cls: type, args: tuple, errno: Any, strerror: Any, filename: Any,
                        state: dict[str, Any]) -> BaseException:
    exc = cls(*args)
    exc.errno, exc.strerror, exc.filename = errno, strerror, filename
    exc.__dict__.update(state)
    return exc


def _file_error_reduce(self: OSError) -> tuple:
    return (_rebuild_file_error,
            (type(self), self.args, self.errno, self.strerror, self.filename, dict(self.__dict__)))


_core.FileError.__reduce__ = _file_error_reduce  # type: ignore[method-assign]
