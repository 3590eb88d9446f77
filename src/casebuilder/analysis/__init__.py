"""The analysis stage: what the incidents amount to in law and in pattern.

Analysis sits between resolution and the front ends. It reads the case's incidents as
:mod:`casebuilder.resolution` builds them (mentions merged, analysts' decisions applied) and
their claims, each with its item, character span, quote and grade; it never writes to the
originals or to extraction results. Each sub-package answers one kind of question:

* :mod:`casebuilder.analysis.elements`: the legal elements a prosecutor must prove, and which
  claims speak for or against each;
* :mod:`casebuilder.analysis.patterns`: patterns across incidents (series in space and time,
  repeated strikes on one site, protected objects hit, wide-area weapons in populated areas,
  scale and regularity), each finding with the incidents behind it, its parameters and its
  statistic.

An analyst's findings are decisions like those on incidents: logged in the custody log with
actor and reason, withdrawn by an undo, never erased. Every analysis is deterministic: the same
incidents and parameters give byte-identical results, so a run logged in the custody log can be
re-run by anyone holding the case. ``reporting/``, ``cli/`` and ``web/`` sit above this stage
and only show what it finds.
"""
