"""Validation suites against ns-2.35 (``ns``; Debian ``apt-get install ns2``).

* ``tcp`` (:mod:`.tcp_suite`): TCP dumbbells, 1 to 200 flows, ns-2's conventions;
* ``queues`` (:mod:`.queue_disciplines`): RED, ARED, DRR and FQ on small scenarios, each
  an ns-2 program and its ccsim twin in ``programs/queues/``;
* ``bmcc-mix`` (:mod:`.bmcc_mix`): BMCC's protocol mixes without BMCC (SACK and
  SACK + ECN over drop-tail and RED, with and without cross traffic);
* ``blt-tcp`` (:mod:`.blt_tcp`): TCP in BLT's open-loop study;
* ``buc-fifo`` (:mod:`.buc_fifo`): the BUC comparison's FIFO gateway, phase locking;
* ``vcp`` (:mod:`.vcp_suite`): VCP against its authors' ns-2 code built into ns-2.35 (a
  binary of its own, ``$CCSIM_NS2_VCP``, built by tools/ns2-vcp/build.sh);
  :mod:`.vcp_scenario` writes both simulators' runs of a case and reads them back, with
  the Tcl programs of ``programs/vcp/``.

:mod:`.tcp_scenario` writes, for one TCP case description, the ns-2 script and the ccsim
scenario with the same drawn start times and delays (the ``tcp`` and ``bmcc-mix``
suites' cases); :mod:`.tcp_linux` runs ns-2.35's TCP-Linux agent (Linux 2.6.22's
congestion-control modules) on the same cases, for the ``westwood`` suite of
:mod:`ccsim.validation.ns3`. :mod:`.reference` is ns-2 itself: whether ``ns`` is here,
its version, running a script. ``programs/`` holds the ns-2 Tcl programs (package data).
"""
