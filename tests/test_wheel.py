"""The wheel: built from the source, installed into a fresh venv without a network, it runs a
bundled game from an empty folder. Its dependencies come from the running environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import attr
import lark
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ["pyproject.toml", "README.md", "rulelang", "grammar", "games"]


def can_build_wheels() -> bool:
    """setuptools 70.1 or newer builds wheels by itself (`python -m pip install '.[test]'`)."""
    try:
        import setuptools
    except ImportError:
        return False
    version = tuple(int(p) for p in setuptools.__version__.split(".")[:2] if p.isdigit())
    if version >= (70, 1):
        return True
    try:
        import wheel  # noqa: F401  (older setuptools build wheels with it)
    except ImportError:
        return False
    return True


@pytest.mark.skipif(not can_build_wheels(), reason="needs setuptools>=70.1: python -m pip install '.[test]'")
def test_wheel_runs_a_bundled_game_from_an_empty_folder(tmp_path: Path) -> None:
    # Build from a copy, so that no build/ or egg-info appears in the checkout.
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCE:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, source / name, **({"ignore": shutil.ignore_patterns("__pycache__")}
                                            if (ROOT / name).is_dir() else {}))
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-c", f"from setuptools import build_meta; print(build_meta.build_wheel({str(dist)!r}))"],
        cwd=source, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    wheel_file = dist / build.stdout.strip().splitlines()[-1]
    assert wheel_file.exists()

    # A fresh venv: no pip of its own, no network; the dependencies from this environment.
    fresh = tmp_path / "fresh"
    venv.create(fresh, with_pip=False)
    python = fresh / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                              "--no-index", "--disable-pip-version-check", "--quiet", str(wheel_file)],
                             capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-3000:]
    dependencies = {str(Path(module.__file__).parent.parent) for module in (attr, lark)}
    Path(site, "dependencies.pth").write_text("\n".join(sorted(dependencies)) + "\n", encoding="utf-8")

    empty = tmp_path / "empty"
    empty.mkdir()
    where = subprocess.run([python, "-c", "import rulelang; print(rulelang.__file__)"], cwd=empty,
                           capture_output=True, text=True, timeout=60)
    assert Path(where.stdout.strip()).is_relative_to(fresh), where.stdout + where.stderr
    rulelang = fresh / ("Scripts/rulelang.exe" if os.name == "nt" else "bin/rulelang")
    played = subprocess.run([rulelang, "run", "chipo-chipa.rules", "--seats", "random,random"], cwd=empty,
                            capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
    assert "winner" in played.stdout, played.stdout[-2000:]
