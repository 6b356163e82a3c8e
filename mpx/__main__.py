import sys

from mpx.cli import main

sys.exit(main())
