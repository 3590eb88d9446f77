"""Intake: the first stage. Takes files and folders from an investigator, hands their bytes to
preservation to be kept bit for bit, recognises each format from its content, and pulls out
metadata, text, embedded files and derived files, recording failures as data.
"""
