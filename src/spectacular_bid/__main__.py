"""``python -m spectacular_bid …`` runs the ``specbid`` command line."""

import sys

from spectacular_bid.cli import main

sys.exit(main())
