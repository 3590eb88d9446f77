"""The analysis pages of the web interface: the pattern analysis of a selection of incidents
(series, repeated strikes, protected objects, wide-area weapons, scale), and the case's own
verification, each run a logged action with the user as actor.

Place in the flow: a front end beside web/app.py (which owns the routes and permissions) and
web/evidence.py; the work is the library's (analysis/patterns, preservation/verify), on the
incidents as the reader may see them (resolution/withholding.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from casebuilder.analysis.patterns.parameters import load_parameters
from casebuilder.analysis.patterns.records import Selection, from_incident
from casebuilder.analysis.patterns.run import PatternReport, analyse
from casebuilder.model.terms import CATEGORY_ORDER, GRADES
from casebuilder.preservation.accounts import SignedIn
from casebuilder.preservation.reads import log_view
from casebuilder.preservation.verify import (
    VerificationReport,
    record_verification,
    verify_case,
)
from casebuilder.resolution.profiles import load_profiles
from casebuilder.resolution.withholding import seen_incidents
from casebuilder.web.params import day_of

if TYPE_CHECKING:
    from casebuilder.web.app import WebApp


class Analysis:
    """The analysis routes of one WebApp."""

    def __init__(self, web: WebApp) -> None:
        self.web = web

    async def patterns(self, request: Request, user: SignedIn) -> Response:
        query = request.query_params
        selection = Selection(since=day_of(query.get("since")), until=day_of(query.get("until")),
                              region=query.get("region") or None,
                              category=query.get("category") or None,
                              perpetrator=query.get("perpetrator") or None,
                              grade=query.get("grade") or None)
        run = query.get("run") == "1"

        def work() -> PatternReport | None:
            if not run:
                return None
            incidents = seen_incidents(self.web.case, self.web.withheld(user))
            profiles = load_profiles()
            report = analyse([from_incident(i, profiles) for i in incidents],
                             load_parameters(None), selection)
            entry = report.run_entry()
            log_view(self.web.case, "web: pattern analysis",
                     details={k: v for k, v in entry.items() if k != "what"})
            return report

        report = await self.web.run(work, actor=user.user)
        return self.web.page("patterns.html", user=user, report=report, query=query,
                             categories=CATEGORY_ORDER, grades=GRADES)

    async def verify_page(self, request: Request, user: SignedIn) -> Response:
        return self.web.page("verify.html", user=user, report=None, logged=None)

    async def verify(self, request: Request, user: SignedIn) -> Response:
        def work() -> tuple[VerificationReport, bool]:
            report = verify_case(self.web.case)
            return report, record_verification(self.web.case, report)

        report, logged = await self.web.run(work, actor=user.user)
        return self.web.page("verify.html", user=user, report=report, logged=logged,
                             counts=sorted(report.counts.items()))
