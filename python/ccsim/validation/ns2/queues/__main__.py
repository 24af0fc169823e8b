"""``python -m ccsim.validation.ns2.queues``: the queue comparison alone."""

import sys

from ccsim.validation.ns2.queues import main

sys.exit(main())
