"""The rulelang grammar, shipped inside the installed package as ``rulelang.grammar``."""
