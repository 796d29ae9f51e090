"""``python -m chatops.cli``: the ``chatops`` command."""

import sys

from . import main

sys.exit(main())
