"""Reading a file someone else wrote: a rules file, a file it extends, a game log.

Only regular files are read (never a fifo, a device or a folder), checked before they are
opened, and at most the size limit is read. A path that a file names (``extends``, a log's
``rules``) must stay inside the folder tree rulelang was given: it is checked before it is
opened, so a refused file is never read and its content never shown.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .diagnostics import register

register("E109", "path-refused", """
`extends` (or a game log's `rules`) names a file outside the folder tree of the file rulelang
was given: an absolute path, a `..` that leaves the tree, or a link that points out of it.
Such a file is never opened, so a rules file from someone else cannot read other files on
your machine. Copy the base file next to the variant, or give the file on the command line
(`--rules FILE` for a log).
""")
register("E601", "file-too-large", """
A rules file (or a file it extends) is larger than the limit, 100,000 bytes by default (the
largest game in games/ is under 10,000): parsing a file takes time in proportion to its size. Raise the limit with
`--limit file_bytes=N` if a real game needs it.
""")


class FileRefused(Exception):
    """A file that is not read: ``code`` (E107, E109, E601) and a message fit to print, which
    never quotes the file's content."""

    def __init__(self, code: str, message: str, help: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.help = help


def read_bytes(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; raises FileRefused."""
    shown = str(path)
    try:
        info = os.stat(path)
    except (OSError, ValueError) as error:
        raise FileRefused("E107", f"cannot read `{shown}`: {_reason(error)}") from None
    if stat.S_ISDIR(info.st_mode):
        raise FileRefused("E107", f"cannot read `{shown}`: it is a folder")
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused("E107", f"cannot read `{shown}`: not a regular file")
    if info.st_size > limit:
        raise FileRefused("E601", f"`{shown}` is too large: {info.st_size} bytes, more than the "
                          f"limit of {limit}", help="raise the limit with `--limit file_bytes=N`")
    try:
        # O_NONBLOCK: a path swapped for a fifo after the check cannot block the open.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise FileRefused("E107", f"cannot read `{shown}`: {_reason(error)}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FileRefused("E107", f"cannot read `{shown}`: not a regular file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise FileRefused("E107", f"cannot read `{shown}`: {_reason(error)}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise FileRefused("E601", f"`{shown}` is too large: more than the limit of {limit} bytes",
                          help="raise the limit with `--limit file_bytes=N`")
    return b"".join(chunks)


def read_text(path: str | Path, limit: int) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes; raises FileRefused. A file
    that is not text (not UTF-8, or holding NUL bytes) is refused before anything parses it."""
    data = read_bytes(path, limit)
    if b"\0" in data:
        raise FileRefused("E107", f"cannot read `{path}`: not a text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileRefused("E107", f"cannot read `{path}`: not UTF-8 text") from None


def inside(path: str | Path, root: str | Path) -> bool:
    """Whether ``path``, links followed, lies in the folder tree of ``root``."""
    try:
        target = Path(path).resolve()
        top = Path(root).resolve()
    except (OSError, RuntimeError, ValueError):
        return False
    return target == top or top in target.parents


def confine(named: str, folder: str | Path, root: str | Path) -> Path:
    """The file that ``named`` (a path written in a file in ``folder``) stands for, when it is
    relative and stays in the tree of ``root``; raises FileRefused (E109) without opening it."""
    if "\0" in named:
        raise FileRefused("E109", "the path holds a NUL character")
    if os.path.isabs(named) or named.startswith("~"):
        raise FileRefused("E109", f"`{named}` is an absolute path; only a path relative to this "
                          "file may be used", help="copy the file next to this one and name it "
                          "by a relative path")
    path = Path(folder) / named
    if not inside(path, root):
        raise FileRefused("E109", f"`{named}` is outside the folder tree of `{root}`",
                          help="only files in the folder of the file given to rulelang, or below "
                          "it, may be used; copy the file there")
    return path


def _reason(error: Exception) -> str:
    reason = getattr(error, "strerror", None) or str(error)
    return reason.lower()


def data_folder(name: str) -> Path:
    """The folder of the package's data ``rulelang.NAME`` (``grammar`` or ``games``): where an
    install put it, else beside the package in a checkout (``grammar/``, ``games/``), which is
    also where it is when the checkout's ``rulelang`` shadows an installed one."""
    from importlib import resources

    try:
        folder = Path(str(resources.files(f"rulelang.{name}")))
    except (ModuleNotFoundError, TypeError):
        folder = None
    if folder is None or not folder.is_dir():
        folder = Path(__file__).resolve().parent.parent / name
    return folder


def bundled_games() -> list[Path]:
    """The games shipped with the package (``rulelang.games``; in a checkout, ``games/``)."""
    return sorted(data_folder("games").glob("*.rules"))


def find_rules(path: str) -> str:
    """The rules file a command names: the file itself when it exists (a local file wins), else
    the bundled game of that file name (`NAME.rules`, `NAME` or `games/NAME.rules` from any
    folder), else the path as given, for its error."""
    if Path(path).exists():
        return path
    name = Path(path).name
    name = name if name.endswith(".rules") else name + ".rules"
    for game in bundled_games():
        if game.name == name:
            return str(game)
    return path


def is_bundled(path: str | Path) -> bool:
    """Whether ``path`` is one of the games shipped with the package."""
    try:
        resolved = Path(path).resolve()
    except OSError:
        return False
    return any(resolved == game.resolve() for game in bundled_games())
