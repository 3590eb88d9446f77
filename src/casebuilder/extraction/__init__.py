"""Extraction: reads the text of preserved items and finds incident mentions and the claims
that make them up (what happened, where, when, to whom, by whom, according to whom).

Sits above intake and preservation: it reads texts through the case, writes its results as
derived data and logs each run in the custody log. Every value it finds carries the item id,
character offsets and the quoted sentence it came from.
"""
