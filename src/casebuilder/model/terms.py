"""The closed lists every stage and front end shares: incident categories and incident grades.

They are defined once here, below every stage, so the extractor, the resolver, exports and the
command line all name the same things and a front end can offer them without loading a stage.
"""

from __future__ import annotations

#: Incident categories, in the order exports list them (the field's vocabulary: PRIMER §2).
CATEGORY_ORDER = ("explosive_attack", "killing", "torture", "sexual_violence", "siege",
                  "displacement", "detention", "destruction")

#: Civilian-harm grades of an incident, from best to least established (PRIMER §4).
GRADES = ("confirmed", "fair", "weak", "contested", "discounted")
