"""``python -m acmesim.cli``: the ``acmesim`` command."""

import sys

from acmesim.cli.main import main

sys.exit(main())
