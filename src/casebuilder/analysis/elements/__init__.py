"""Legal elements: the catalogue of what must be proven, and the element matrix of an incident.

The catalogue (``*.toml`` beside this module; ``charges.toml`` groups crimes into charges) is
data: each crime of the Rome Statute the case may need, broken into its numbered elements as
the ICC Elements of Crimes number them, each with its kind, a short statement in our words and
its means of proof, the signals casebuilder can find (:mod:`.signals`). :mod:`.matrix` reads an
incident's claims against each element, keeping what speaks for it and what speaks against it
(Rome Statute art. 54(1)(a)), and a rule table (``rules/status.toml``, :mod:`.status`) names the
status that follows. Analysts' findings (:mod:`.findings`) are decisions in the custody log.
"""
