"""The games that ship with rulelang, installed inside the package as ``rulelang.games``: `rulelang
run chipo-chipa.rules` finds them from any folder (a local file of that name wins)."""
