"""``python -m companion.engine.junior [--build-book [--jobs N]]``: see ``builder.main``."""

import sys

from companion.engine.junior.builder import main

raise SystemExit(main(sys.argv[1:]))
