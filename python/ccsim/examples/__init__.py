"""Models written only against ccsim's public Python API (:mod:`ccsim.extend`): ports of
built-in modules that give the built-in module's results to the last bit (checked in
``tests/test_extend_*.py``), and sketches of mechanisms the engine does not have.

Congestion control (``cc = {kind = "python", class = "ccsim.examples.newreno:NewReno"}``):
:mod:`~ccsim.examples.newreno`, :mod:`~ccsim.examples.cubic`,
:mod:`~ccsim.examples.dctcp`, :mod:`~ccsim.examples.vegas`. Queue disciplines
(``queue = {kind = "python", class = "ccsim.examples.codel:CoDel"}``):
:mod:`~ccsim.examples.codel`, :mod:`~ccsim.examples.pie`, :mod:`~ccsim.examples.step`.
Explicit feedback end to end: :mod:`~ccsim.examples.rcp`. Reinforcement learning over
:mod:`ccsim.gym`: :mod:`~ccsim.examples.gym_cem` (a linear window policy trained by the
cross-entropy method, compared with CUBIC and BBR; needs ``gymnasium``).
"""
