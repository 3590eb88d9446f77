"""Resolution: turns incident mentions from many documents into incidents, keeps every
source's version side by side, counts independent origins and grades how well each incident is
established. Sits above extraction; reporting and analysis read its incidents.
"""
