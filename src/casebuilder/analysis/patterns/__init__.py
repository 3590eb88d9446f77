"""Pattern analysis across incidents (``casebuilder patterns``).

An analysis runs on a plain list of :class:`~casebuilder.analysis.patterns.records.IncidentRecord`
(built from resolution's incidents by :func:`~casebuilder.analysis.patterns.records.from_incident`,
or from any other table of events), with parameters read from ``parameters.toml`` and the
weapons table ``weapons.toml`` (both data, each value with why). :func:`~casebuilder.analysis.
patterns.run.analyse` returns findings (each naming the incidents behind it, its parameters and
its statistic) and every statistical test made, significant or not. Nothing here knows who is
accused: claimed perpetrators are a filter of the selection and a label on findings, never an
input to any method.
"""
