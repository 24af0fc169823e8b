"""The names ``ccsim.experiments.base`` has always offered, for code that imports them
from here: the framework (:mod:`ccsim.experiments.framework`) and :func:`reproduce`
(:mod:`ccsim.experiments`). This module sits above both; nothing in ccsim imports it
(the paper packages import the framework, which the registry imports in turn)."""

from __future__ import annotations

from ccsim.experiments import reproduce
from ccsim.experiments.framework import Check, Data, Experiment, Outcome, Run, save_figure

__all__ = ["Check", "Data", "Experiment", "Outcome", "Run", "reproduce", "save_figure"]
