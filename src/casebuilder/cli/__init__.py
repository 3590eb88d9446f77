"""The command line: a thin front end that opens a case, calls the stages and prints results.

Errors from the library arrive as :class:`casebuilder.errors.CasebuilderError` and are turned
into messages here and nowhere else.
"""
