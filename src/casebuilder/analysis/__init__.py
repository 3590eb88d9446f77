"""The analysis stage: what a selection of incidents amounts to, for the questions a
prosecutor (and a defence expert) asks of them.

Place in the flow: analysis reads the incidents resolution builds
(:mod:`casebuilder.resolution.incidents`) and their claims; it never writes to the originals
or to the extraction results. Reporting, the command line and the web front end sit above it
and show what it finds. Each sub-package answers one kind of question:

* :mod:`casebuilder.analysis.patterns`: patterns across incidents (series in space and time,
  repeated strikes on one site, protected objects hit, wide-area weapons in populated areas,
  scale and regularity), each finding with the incidents behind it, its parameters and its
  statistic.
* ``casebuilder.analysis.elements``: the legal elements of the crimes and which claims bear on
  each (written separately).

Every analysis is deterministic: the same incidents and parameters give byte-identical results,
so a run logged in the custody log can be re-run by anyone holding the case.
"""
