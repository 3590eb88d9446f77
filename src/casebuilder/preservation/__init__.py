"""Preservation: the write-once store of originals and the custody log that records every action.

Sits directly above ``store``: intake hands it bytes to keep, every later stage reads originals
through it and appends its actions to the custody log.
"""
