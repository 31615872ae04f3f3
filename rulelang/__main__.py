"""``python -m rulelang``: the command line (see rulelang.cli)."""

from .cli import main

raise SystemExit(main())
