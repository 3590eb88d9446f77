"""The case file: incident, pattern and case reports as documents people read (PDF, HTML).

Part of reporting, the last stage. ``document`` is the neutral form every report is assembled
into (headings, paragraphs whose sentences cite source spans, tables, figures); the content
modules build it from the case, and the renderers write it as HTML or, through typst, as PDF.
"""
