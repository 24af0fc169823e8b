"""Validation suites against ns-3 (the ``ns3`` package of the Python index, 3.44).

* ``westwood`` (:mod:`.westwood_buffer_sizing`): Westwood+ and NewReno on the
  buffer-sizing paper's settings (one flow, Fig. 4; 200 flows, Fig. 8), against ns-3's
  ``TcpWestwoodPlus`` and ``TcpNewReno`` and ns-2.35's TCP-Linux agent running Linux's
  own ``westwood`` and ``reno`` modules;
* ``modern`` (:mod:`.modern_cc_aqm`): today's congestion controls (CUBIC, BBR, Vegas,
  DCTCP, NewReno) over drop-tail and today's AQMs (CoDel, FQ-CoDel, PIE, step marking).

Both run one C++ dumbbell (:mod:`.dumbbell`: ``programs/dumbbell.cc``, package data),
compiled once against the wheel's headers and libraries (cached) with the harness's own
main, per case and seed, with the draws ns-2 and ccsim get, so the simulators see one
scenario: :mod:`.bulk_tcp` (an ns-2 TCP case over drop-tail, for ``westwood`` and
``benches/bbr_vs_ns3.py``) and the ``modern`` suite's. :mod:`.reference` is ns-3 itself:
whether the wheel and a compiler are here, and its version.
"""
