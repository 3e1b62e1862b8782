"""pipeviz: how pipeline-parallel training spends its time.

parameters -> schedule (each rank's ordered ops) -> simulated timeline -> metrics.
Nothing in this package below `pipeviz.render` imports bokeh or panel (tests/test_layers.py).
"""

from .config import Config
from .costs import Costs
from .engine import Result, run
from .errors import ConfigError, DeadlockError, OrderError, PipevizError
from .registry import NAMES, SCHEDULES

__all__ = ["Config", "Costs", "Result", "run", "ConfigError", "DeadlockError", "OrderError", "PipevizError", "NAMES", "SCHEDULES"]
__version__ = "0.1.0"
