"""rulelang: a declarative rules language for tabletop dice and card games, and its engine."""

from .diagnostics import Diagnostic, RulesError, RuntimeFault
from .model import GameDef
from .pipeline import analyse, load
from .runtime import CHANCE, TERMINAL, State

__all__ = ["CHANCE", "TERMINAL", "Diagnostic", "GameDef", "RulesError", "RuntimeFault", "State",
           "analyse", "load"]
__version__ = "0.1.0"
