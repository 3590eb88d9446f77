"""``python -m casebuilder`` runs the command line, as the ``casebuilder`` program does."""

from casebuilder.cli.entry import main

main()
