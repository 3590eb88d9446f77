"""Reporting: the last stage. Turns a case into things people and other tools read: court
bundles, exports, case files, maps and timelines.
"""
