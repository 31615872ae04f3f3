"""Build the browser playground as a static site (the page, Pyodide, CodeMirror, rulelang's wheels
and the bundled games) and serve it for development.

The npm packages are pinned in ``npm-lock.json`` and checked against their sha512 integrity; the
tarballs are cached, so a tarball put in the cache folder builds the site offline. The wheels are
built from what is installed (rulelang, lark, attrs), byte for byte the same on every build.
"""

from __future__ import annotations

import base64
import csv
import functools
import hashlib
import http.server
import io
import json
import os
import re
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path, PurePosixPath

import attrs

from .. import __version__
from ..files import data_folder

HERE = Path(__file__).resolve().parent
LOCK_FILE = HERE / "npm-lock.json"
PAGE_DIR = HERE / "page"
DEPENDENCIES = ("lark", "attrs")
DOWNLOAD_TIMEOUT = 60  # seconds without data before a download is given up
MAX_TARBALL = 200 * 1024 * 1024
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # a fixed date: the same wheel bytes on every build
KEYWORD = re.compile(r'"([a-z_]+)"')
MIME_TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".whl": "application/octet-stream",
    ".zip": "application/octet-stream",
    ".json": "application/json",
    ".rules": "text/plain; charset=utf-8",
}


class BuildError(Exception):
    """The site cannot be built or served (a download, an integrity check, a file to write)."""


@attrs.frozen
class NpmPackage:
    """One pinned npm tarball: ``files`` maps a path under its ``package/`` to a site path."""

    name: str
    version: str
    url: str
    integrity: str
    files: dict[str, str]

    @property
    def tarball_name(self) -> str:
        return f"{self.name}-{self.version}.tgz"


def npm_packages(lock_file: Path = LOCK_FILE) -> list[NpmPackage]:
    """The pinned npm packages of ``npm-lock.json``."""
    data = json.loads(lock_file.read_text(encoding="utf-8"))
    return [NpmPackage(p["name"], p["version"], p["url"], p["integrity"], dict(p["files"]))
            for p in data["packages"]]


def default_cache_dir() -> Path:
    """Where tarballs are kept: ``$RULELANG_CACHE``, else ``~/.cache/rulelang/npm``."""
    given = os.environ.get("RULELANG_CACHE")
    return Path(given) if given else Path.home() / ".cache" / "rulelang" / "npm"


# ---------------------------------------------------------------------- npm tarballs
def integrity_of(path: Path) -> str:
    """The npm integrity string of a file: ``sha512-`` and the base64 of its sha512 digest."""
    digest = hashlib.sha512()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return "sha512-" + base64.b64encode(digest.digest()).decode("ascii")


def fetch_package(entry: NpmPackage, cache_dir: Path) -> Path:
    """The package's tarball in ``cache_dir``: the cached file when its integrity matches, else
    downloaded and checked. Raises BuildError when it cannot be had."""
    target = cache_dir / entry.tarball_name
    offline = (f"to build offline, put {entry.tarball_name} (integrity {entry.integrity}) "
               f"in {cache_dir}")
    if target.is_file():
        if integrity_of(target) == entry.integrity:
            return target
        offline += f" (the {entry.tarball_name} there does not match that integrity)"
    what = f"{entry.name}@{entry.version}"
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BuildError(f"cannot create the cache folder {cache_dir}: {error.strerror or error}") from None
    handle, name = tempfile.mkstemp(prefix=entry.tarball_name + ".", suffix=".part", dir=cache_dir)
    os.close(handle)
    partial = Path(name)
    try:
        try:
            download(entry.url, partial)
        except (OSError, urllib.error.URLError, ValueError) as error:
            reason = getattr(error, "reason", None) or getattr(error, "strerror", None) or error
            raise BuildError(f"cannot download {what} from {entry.url}: {reason}\n"
                             f"  = help: {offline}") from None
        got = integrity_of(partial)
        if got != entry.integrity:
            raise BuildError(f"the download of {what} from {entry.url} does not match its pinned "
                             f"integrity: expected {entry.integrity}, got {got}\n"
                             f"  = help: {offline}")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def download(url: str, path: Path) -> None:
    """Copy ``url`` into ``path`` (at most MAX_TARBALL bytes)."""
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response, path.open("wb") as out:
        size = 0
        for block in iter(lambda: response.read(1 << 20), b""):
            size += len(block)
            if size > MAX_TARBALL:
                raise ValueError(f"larger than {MAX_TARBALL} bytes")
            out.write(block)


def extract_files(tarball: Path, files: dict[str, str], dest: Path) -> list[Path]:
    """Copy the listed regular files of the tarball's ``package/`` to their site paths under
    ``dest``; nothing else is extracted, and no path may leave ``dest``."""
    written = []
    try:
        with tarfile.open(tarball, "r:gz") as tar:
            for source, site_path in sorted(files.items()):
                target = site_file(dest, site_path)
                try:
                    member = tar.getmember(f"package/{source}")
                except KeyError:
                    raise BuildError(f"{tarball.name} has no file package/{source}") from None
                data = tar.extractfile(member) if member.isfile() else None
                if data is None:
                    raise BuildError(f"package/{source} in {tarball.name} is not a regular file")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data.read())
                written.append(target)
    except (tarfile.TarError, EOFError, OSError) as error:
        if isinstance(error, OSError) and error.filename:
            raise
        raise BuildError(f"cannot read {tarball}: {error}\n  = help: delete it and build again") from None
    return written


def site_file(dest: Path, site_path: str) -> Path:
    """``dest / site_path``, refused when the path is absolute or climbs out of ``dest``."""
    parts = PurePosixPath(site_path).parts
    if not parts or PurePosixPath(site_path).is_absolute() or ".." in parts or "\\" in site_path:
        raise BuildError(f"refused site path `{site_path}`: it must stay inside the site folder")
    return dest.joinpath(*parts)


# ---------------------------------------------------------------------- wheels
def record_hash(data: bytes) -> str:
    """A RECORD hash as pip writes it: ``sha256=`` and the urlsafe base64 digest, unpadded."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def wheel_name(dist: str) -> str:
    """A distribution's name as wheel file names and dist-info folders spell it."""
    return re.sub(r"[-_.]+", "_", dist).lower()


def write_wheel(out_dir: Path, dist: str, version: str, files: dict[str, bytes],
                metadata_text: str, extra_dist_info: dict[str, bytes] | None = None) -> Path:
    """Write ``{dist}-{version}-py3-none-any.whl`` holding ``files`` (archive path -> bytes)
    and a dist-info with METADATA, WHEEL, any extra files and a fresh RECORD. The zip is
    deterministic: sorted entries, a fixed date, fixed permissions."""
    name = wheel_name(dist)
    info = f"{name}-{version}.dist-info"
    wheel_text = ("Wheel-Version: 1.0\nGenerator: rulelang playground\n"
                  "Root-Is-Purelib: true\nTag: py3-none-any\n")
    entries = sorted(files.items())
    entries += sorted({f"{info}/{k}": v for k, v in (extra_dist_info or {}).items()}.items())
    entries += [(f"{info}/METADATA", metadata_text.encode("utf-8")),
                (f"{info}/WHEEL", wheel_text.encode("utf-8"))]
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arcname, data in entries:
        writer.writerow([arcname, record_hash(data), len(data)])
    writer.writerow([f"{info}/RECORD", "", ""])
    entries.append((f"{info}/RECORD", record.getvalue().encode("utf-8")))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for arcname, data in entries:
            item = zipfile.ZipInfo(arcname, date_time=ZIP_DATE)
            item.compress_type = zipfile.ZIP_DEFLATED
            item.external_attr = 0o644 << 16
            archive.writestr(item, data)
    return path


def package_files(folder: Path, prefix: str = "", skip: Iterable[str] = ()) -> Iterator[tuple[str, bytes]]:
    """Every file below ``folder`` as (``prefix/relative path``, bytes), without bytecode,
    hidden files or the relative folders in ``skip``."""
    skipped = set(skip)
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if (not path.is_file() or "__pycache__" in relative.parts or path.suffix == ".pyc"
                or any(part.startswith(".") for part in relative.parts)
                or any(relative.is_relative_to(s) for s in skipped)):
            continue
        yield (f"{prefix}/" if prefix else "") + relative.as_posix(), path.read_bytes()


def rulelang_wheel(out_dir: Path) -> Path:
    """A wheel of the importable rulelang, with its grammar and games from wherever
    ``data_folder`` finds them (in an editable install or a checkout: the checkout's folders)."""
    root = Path(__file__).resolve().parent.parent
    files = dict(package_files(root, "rulelang", skip=("grammar", "games", "playground/page")))
    for sub in ("grammar", "games"):
        files.update(package_files(data_folder(sub), f"rulelang/{sub}"))
    try:
        requires = [r for r in metadata.requires("rulelang") or [] if "extra ==" not in r]
    except metadata.PackageNotFoundError:
        requires = list(DEPENDENCIES)
    text = (f"Metadata-Version: 2.1\nName: rulelang\nVersion: {__version__}\n"
            "Summary: A declarative rules language for tabletop dice and card games\n"
            "Requires-Python: >=3.11\n" + "".join(f"Requires-Dist: {r}\n" for r in requires))
    return write_wheel(out_dir, "rulelang", __version__, files, text)


def installed_wheel(out_dir: Path, dist_name: str) -> Path:
    """A wheel of an installed pure-Python distribution, from its files; installer records
    (RECORD, INSTALLER, REQUESTED, direct_url.json) and bytecode are left out."""
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        raise BuildError(f"{dist_name} is not installed: python -m pip install {dist_name}") from None
    version = dist.version
    dropped = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json", "METADATA", "WHEEL"}
    files: dict[str, bytes] = {}
    extra: dict[str, bytes] = {}
    for item in dist.files or []:
        parts = PurePosixPath(str(item)).parts
        if (".." in parts or PurePosixPath(str(item)).is_absolute() or "__pycache__" in parts
                or item.suffix == ".pyc"):
            continue
        in_info = parts[0].endswith(".dist-info")
        if in_info and "/".join(parts[1:]) in dropped:
            continue
        data = Path(str(item.locate())).read_bytes()
        if in_info:
            extra["/".join(parts[1:])] = data
        else:
            files["/".join(parts)] = data
    if not files:
        raise BuildError(f"found no files of the installed {dist_name} to put in its wheel")
    metadata_text = dist.read_text("METADATA") or f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\n"
    return write_wheel(out_dir, dist_name, version, files, metadata_text, extra)


# ---------------------------------------------------------------------- the site
def grammar_keywords() -> list[str]:
    """The word literals of the grammar (``"roll"``, ``"turn"``, ...), sorted."""
    words: set[str] = set()
    for path in sorted(data_folder("grammar").iterdir()):
        if path.name.endswith(".lark"):
            for line in path.read_text(encoding="utf-8").splitlines():
                if not line.lstrip().startswith("//"):
                    words.update(KEYWORD.findall(line))
    return sorted(words)


def build_site(dest: Path, cache_dir: Path | None = None) -> dict:
    """Write the playground site into ``dest``: the page's files, ``vendor/`` (the pinned npm
    files), ``wheels/`` (rulelang, lark, attrs), ``games/`` (the bundled games) and
    ``manifest.json``; return a summary ``{"dest", "files", "bytes"}``. Raises BuildError."""
    from ..files import bundled_games

    dest = Path(dest)
    if dest.exists() and not dest.is_dir():
        raise BuildError(f"{dest} is not a folder")
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    packages = npm_packages()
    tarballs = [(entry, fetch_package(entry, cache_dir)) for entry in packages]
    try:
        written = []
        if PAGE_DIR.is_dir():
            for site_path, data in package_files(PAGE_DIR):
                target = site_file(dest, site_path)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                written.append(target)
        for entry, tarball in tarballs:
            written += extract_files(tarball, entry.files, dest)
        wheels = [rulelang_wheel(dest / "wheels")]
        wheels += [installed_wheel(dest / "wheels", name) for name in DEPENDENCIES]
        written += wheels
        (dest / "games").mkdir(parents=True, exist_ok=True)
        for game in bundled_games():
            target = dest / "games" / game.name
            target.write_bytes(game.read_bytes())
            written.append(target)
        from . import api  # only now: it loads the engine

        pyodide = next(e.version for e in packages if e.name == "pyodide")
        manifest = {"rulelang": __version__, "pyodide": pyodide,
                    "wheels": [w.relative_to(dest).as_posix() for w in wheels],
                    "games": api.catalogue(), "keywords": grammar_keywords()}
        target = dest / "manifest.json"
        target.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        written.append(target)
    except OSError as error:
        where = error.filename or dest
        raise BuildError(f"cannot write the site into {dest}: {where}: {error.strerror or error}") from None
    return {"dest": str(dest), "files": len(written), "bytes": sum(p.stat().st_size for p in written)}


# ---------------------------------------------------------------------- serving
class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the MIME types the page needs (modules, WebAssembly, wheels)."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")  # a rebuilt site shows on reload
        super().end_headers()


class QuietSiteHandler(SiteHandler):
    """A SiteHandler that logs no requests (benchmarks, tests)."""

    def log_message(self, format: str, *args: object) -> None:
        pass


def make_server(dest: Path, host: str = "127.0.0.1", port: int = 8000,
                quiet: bool = False) -> http.server.ThreadingHTTPServer:
    """An HTTP server of the folder ``dest`` (not yet serving); port 0 picks a free port."""
    handler = functools.partial(QuietSiteHandler if quiet else SiteHandler, directory=str(dest))
    try:
        return http.server.ThreadingHTTPServer((host, port), handler)
    except (OSError, OverflowError) as error:
        raise BuildError(f"cannot listen on {host}:{port}: {getattr(error, 'strerror', None) or error}\n"
                         "  = help: choose another port with --port N") from None


def serve(dest: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve ``dest`` over HTTP until interrupted (Ctrl-C raises KeyboardInterrupt)."""
    server = make_server(dest, host, port)
    with server:
        shown = f"[{host}]" if ":" in host else host
        print(f"serving {dest} at http://{shown}:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
        server.serve_forever()
