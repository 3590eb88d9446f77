"""The analysis stage: what the incidents amount to in law and in pattern.

Analysis sits between resolution and the front ends. It reads the case's incidents as
:mod:`casebuilder.resolution` builds them (mentions merged, analysts' decisions applied) and
their claims, each with its item, character span, quote and grade; it never writes to the
originals or to extraction results. What it adds is a reading of those claims against the
law (:mod:`casebuilder.analysis.elements`: the legal elements a prosecutor must prove, and
which claims speak for or against each) and across incidents (``analysis.patterns``: series,
scale, repeated sites). An analyst's findings are decisions like those on incidents: logged in
the custody log with actor and reason, withdrawn by an undo, never erased.

``reporting/``, ``cli/`` and ``web/`` sit above this stage and only show what it finds.
"""
