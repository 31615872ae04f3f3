"""The playground's site: its manifest, its wheels (valid, reproducible, enough to run rulelang
alone), the npm tarballs' integrity checks, the command line's errors and the server's MIME types.

The site is built once for the module; the npm tarballs are downloaded into the usual cache
(``$RULELANG_CACHE`` or ``~/.cache/rulelang/npm``), so a rerun needs no network.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import tarfile
import threading
import urllib.request
import zipfile
from pathlib import Path

import pytest

from rulelang import __version__, cli
from rulelang.files import bundled_games, data_folder
from rulelang.playground import build


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("site")
    summary = build.build_site(dest)
    assert summary["dest"] == str(dest) and summary["files"] > 10 and summary["bytes"] > 1_000_000
    return dest


def test_data_is_found_beside_a_checkout_that_shadows_an_install(monkeypatch) -> None:
    # CI installs the project, then runs pytest in the checkout, whose rulelang has no
    # rulelang.grammar or rulelang.games subpackage: the folders beside it serve.
    from importlib import resources

    def not_a_package(name: str):
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(resources, "files", not_a_package)
    assert (data_folder("grammar") / "rulelang.lark").is_file()
    assert "pickomino.rules" in {p.name for p in bundled_games()}
    assert {"turn", "rule"} <= set(build.grammar_keywords())


def tarball(tmp_path: Path, files: dict[str, bytes]) -> Path:
    path = tmp_path / "source.tgz"
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            item = tarfile.TarInfo(f"package/{name}")
            item.size = len(data)
            tar.addfile(item, io.BytesIO(data))
    return path


def fake_package(source: Path, integrity: str | None = None) -> build.NpmPackage:
    return build.NpmPackage("fake", "1.0.0", source.as_uri(), integrity or build.integrity_of(source),
                            {"a.js": "vendor/fake/a.js"})


# ---------------------------------------------------------------------- the site
def test_manifest_names_the_versions_wheels_games_and_keywords(site: Path) -> None:
    manifest = json.loads((site / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest) == {"rulelang", "pyodide", "wheels", "games", "keywords"}
    assert manifest["rulelang"] == __version__
    assert manifest["pyodide"] == "314.0.8"
    names = [Path(w).name.split("-")[0] for w in manifest["wheels"]]
    assert names == ["rulelang", "lark", "attrs"]
    assert all((site / w).is_file() and w.startswith("wheels/") for w in manifest["wheels"])
    assert {g["file"] for g in manifest["games"]} == {p.name for p in bundled_games()}
    assert all((site / "games" / g["file"]).is_file() for g in manifest["games"])
    keywords = manifest["keywords"]
    assert keywords == sorted(set(keywords)) and {"turn", "rule", "roll", "choose"} <= set(keywords)


def test_the_site_holds_the_page_and_the_pinned_vendor_files(site: Path) -> None:
    for entry in build.npm_packages():
        for site_path in entry.files.values():
            assert (site / site_path).is_file(), site_path
    for page_file in build.PAGE_DIR.rglob("*"):
        if page_file.is_file() and "__pycache__" not in page_file.parts:
            assert (site / page_file.relative_to(build.PAGE_DIR)).read_bytes() == page_file.read_bytes()
    assert (site / "vendor/pyodide/pyodide.asm.wasm").read_bytes()[:4] == b"\0asm"


def test_each_wheel_is_a_valid_zip_whose_record_matches(site: Path) -> None:
    for wheel in sorted((site / "wheels").glob("*.whl")):
        dist, version, *tags = wheel.stem.split("-")
        assert tags == ["py3", "none", "any"], wheel.name
        info = f"{dist}-{version}.dist-info"
        with zipfile.ZipFile(wheel) as archive:
            assert archive.testzip() is None
            names = archive.namelist()
            assert not [n for n in names if n.endswith(".pyc") or "__pycache__" in n]
            assert names[-1] == f"{info}/RECORD"
            assert "Tag: py3-none-any" in archive.read(f"{info}/WHEEL").decode()
            assert f"Version: {version}" in archive.read(f"{info}/METADATA").decode()
            rows = list(csv.reader(io.StringIO(archive.read(f"{info}/RECORD").decode())))
            assert sorted(r[0] for r in rows) == sorted(names)
            for name, digest, size in rows:
                if name == f"{info}/RECORD":
                    assert digest == size == ""
                    continue
                data = archive.read(name)
                expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                assert (digest, int(size)) == (f"sha256={expected}", len(data)), name


def test_wheels_are_reproducible(site: Path, tmp_path: Path) -> None:
    again = [build.rulelang_wheel(tmp_path)] + [build.installed_wheel(tmp_path, d) for d in build.DEPENDENCIES]
    for wheel in again:
        assert wheel.read_bytes() == (site / "wheels" / wheel.name).read_bytes(), wheel.name


def test_rulelang_runs_from_its_three_wheels_alone(site: Path, tmp_path: Path) -> None:
    unpacked = tmp_path / "unpacked"
    for wheel in (site / "wheels").glob("*.whl"):
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(unpacked)
    empty = tmp_path / "empty"
    empty.mkdir()
    script = (
        "import sys, rulelang, lark, attr\n"
        "from rulelang.files import bundled_games, data_folder\n"
        "from rulelang.pipeline import analyse\n"
        "print(rulelang.__file__, lark.__file__, attr.__file__)\n"
        "games = bundled_games()\n"
        "game, diagnostics = analyse(str(games[0]))\n"
        "assert game is not None, diagnostics\n"
        "print(len(games), game.name)\n"
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env["PYTHONPATH"] = str(unpacked)
    ran = subprocess.run([sys.executable, "-S", "-c", script], cwd=empty, env=env,
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-3000:]
    files, count = ran.stdout.splitlines()
    assert all(Path(f).is_relative_to(unpacked) for f in files.split()), files
    assert int(count.split()[0]) == len(bundled_games())


# ---------------------------------------------------------------------- npm tarballs
def test_a_tarball_is_downloaded_once_and_then_used_offline(tmp_path: Path) -> None:
    source = tarball(tmp_path, {"a.js": b"export const a = 1;\n", "b.js": b"no\n"})
    entry = fake_package(source)
    cache = tmp_path / "cache"
    fetched = build.fetch_package(entry, cache)
    assert fetched == cache / "fake-1.0.0.tgz" and fetched.read_bytes() == source.read_bytes()
    source.unlink()  # from now on the URL fails: the cache must serve
    assert build.fetch_package(entry, cache) == fetched
    written = build.extract_files(fetched, entry.files, tmp_path / "site")
    assert written == [tmp_path / "site/vendor/fake/a.js"]
    assert sorted(p.name for p in (tmp_path / "site").rglob("*") if p.is_file()) == ["a.js"]


def test_an_integrity_mismatch_is_refused_with_help(tmp_path: Path) -> None:
    source = tarball(tmp_path, {"a.js": b"tampered\n"})
    entry = fake_package(source, integrity="sha512-" + base64.b64encode(b"x" * 64).decode())
    cache = tmp_path / "cache"
    with pytest.raises(build.BuildError) as raised:
        build.fetch_package(entry, cache)
    message = str(raised.value)
    for part in ("fake@1.0.0", source.as_uri(), "does not match", entry.integrity,
                 build.integrity_of(source), "to build offline", str(cache)):
        assert part in message, part
    assert list(cache.iterdir()) == []  # neither the bad tarball nor a partial file stays


def test_a_failed_download_says_how_to_build_offline(tmp_path: Path) -> None:
    entry = fake_package(tarball(tmp_path, {"a.js": b""}))
    missing = build.NpmPackage(entry.name, entry.version, (tmp_path / "gone.tgz").as_uri(),
                               entry.integrity, entry.files)
    with pytest.raises(build.BuildError, match="cannot download fake@1.0.0 from file:.*gone.tgz") as raised:
        build.fetch_package(missing, tmp_path / "cache")
    assert "put fake-1.0.0.tgz" in str(raised.value)


def test_extraction_takes_only_listed_files_inside_the_site(tmp_path: Path) -> None:
    source = tarball(tmp_path, {"a.js": b"1"})
    with pytest.raises(build.BuildError, match="refused site path"):
        build.extract_files(source, {"a.js": "../outside.js"}, tmp_path / "site")
    with pytest.raises(build.BuildError, match="has no file package/b.js"):
        build.extract_files(source, {"b.js": "b.js"}, tmp_path / "site")
    assert not (tmp_path / "outside.js").exists()


# ---------------------------------------------------------------------- command line
def test_the_cli_exits_2_with_a_message_when_a_download_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    gone = build.NpmPackage("pyodide", "314.0.8", (tmp_path / "gone.tgz").as_uri(),
                            "sha512-AAAA", {"pyodide.mjs": "vendor/pyodide/pyodide.mjs"})
    monkeypatch.setattr(build, "npm_packages", lambda: [gone])
    code = cli.main(["playground", "build", str(tmp_path / "site"), "--cache", str(tmp_path / "cache")])
    assert code == 2
    out, error = capsys.readouterr()
    assert error.startswith("rulelang playground: error: cannot download pyodide@314.0.8"), error
    assert "Traceback" not in error and "to build offline" in error


def test_serve_from_the_cli_stops_on_ctrl_c_with_130(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    seen = {}

    def interrupted(dest: Path, host: str, port: int) -> None:
        seen.update(dest=dest, host=host, port=port)
        raise KeyboardInterrupt

    monkeypatch.setattr(build, "build_site", lambda dest, cache: {"dest": str(dest), "files": 0, "bytes": 0})
    monkeypatch.setattr(build, "serve", interrupted)
    assert cli.main(["playground", "serve", "--dir", str(tmp_path), "--port", "8123"]) == 130
    assert seen == {"dest": tmp_path, "host": "127.0.0.1", "port": 8123}


# ---------------------------------------------------------------------- serving
def test_the_server_gives_the_mime_types_the_page_needs(site: Path) -> None:
    server = build.make_server(site, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        wheel = json.loads((site / "manifest.json").read_text(encoding="utf-8"))["wheels"][0]
        for path, mime in [("vendor/pyodide/pyodide.asm.wasm", "application/wasm"),
                           ("vendor/pyodide/pyodide.mjs", "text/javascript"),
                           ("vendor/pyodide/python_stdlib.zip", "application/octet-stream"),
                           (wheel, "application/octet-stream"),
                           ("manifest.json", "application/json")]:
            with urllib.request.urlopen(base + path, timeout=10) as response:
                assert response.headers.get_content_type() == mime, path
                assert response.read() == (site / path).read_bytes()
    finally:
        server.shutdown()
        server.server_close()


def test_a_busy_port_is_a_build_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(build.BuildError, match="(?s)cannot listen on 127.0.0.1:.*--port"):
            build.make_server(tmp_path, "127.0.0.1", taken.getsockname()[1])
