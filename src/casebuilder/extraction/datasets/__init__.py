"""Datasets as evidence: event tables that monitors coded by hand (ACLED, UCDP GED, the
Russia-Ukraine Monitor, Bellingcat's civilian-harm export, casebuilder's own GeoJSON, an
investigator's spreadsheet) taken in as originals, each row an incident mention (or a context
row, or a rejected row) whose every value cites its cell.

* reading.py     bytes -> rows with line numbers and byte spans of every cell
* mapping.py     the mapping tables (mappings/<format>/*.toml) and their predicates
* rows.py        what becomes of a row; parsing dates, coordinates and counts; citing cells
* formats.py     what every format does; one module per format
* importing.py   the step that preserves the file and stores the rows' outcomes

See docs/decisions/0018-datasets-as-evidence.md.
"""

#: The item formats a dataset can arrive as: ``ingest`` looks for datasets among these only
#: (recognising.py), so a run of photos or videos never loads the importers.
DATASET_CARRIERS = ("text", "json")
