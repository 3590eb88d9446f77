"""``python -m casebuilder`` runs the command line."""

from casebuilder.cli.main import main

main()
