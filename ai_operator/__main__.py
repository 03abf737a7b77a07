"""`python -m ai_operator` runs the command-line interface."""

from ai_operator.cli import main

raise SystemExit(main())
