"""Schemathesis hooks for `npm run fuzz` (loaded by test/contract/schemathesis.toml).

GET /activations/records: `to` must be at or after `from`, a rule between two query parameters
that JSON Schema cannot state. Generated pairs that break it are dropped instead of letting the
operation answer 400 unchecked: every other VALIDATION_ERROR there still fails the run.

POST /admin/users and POST /admin/companies/invites: the super_admin identity creates accounts.
Generated e-mail addresses come from a small space, so an end user's later PUT /auth/me with the
same address would answer the spec's VALIDATION_ERROR ("already registered"), a refusal that
depends on another identity's request, not on the document. Accounts created by the super_admin
get an address of their own instead; the routes still see an e-mail whenever one was generated.

/admin/companies/{id}: schemathesis infers a link from the invite answer's `companyId`, which is
null for a first admin (no company yet); it then sends the text "None" as the id. A null there
means "no company", so the case is sent with an id of no company instead (answered 404).
"""

from datetime import datetime
from uuid import uuid4

import schemathesis


def _instant(value):
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


@schemathesis.hook("filter_query").apply_to(path="/activations/records", method="GET")
def to_not_before_from(context, query):
    start, end = _instant((query or {}).get("from")), _instant((query or {}).get("to"))
    return start is None or end is None or end >= start


def _own_address(context, body):
    if isinstance(body, dict) and isinstance(body.get("email"), str):
        return {**body, "email": f"fuzz-{uuid4().hex[:12]}@example.com"}
    return body


@schemathesis.hook("map_body").apply_to(path="/admin/users", method="POST")
def staff_address(context, body):
    return _own_address(context, body)


@schemathesis.hook("map_body").apply_to(path="/admin/companies/invites", method="POST")
def invitee_address(context, body):
    return _own_address(context, body)



# before_call, not map_path_parameters: in the stateful phase the link's value is put into the case
# after generation, so only a hook that runs just before the request sees it.
@schemathesis.hook("before_call").apply_to(path_regex=r"^/admin/companies/\{id\}(/status)?$")
def no_company_id(context, case, kwargs):
    if case.path_parameters and case.path_parameters.get("id") in (None, "None"):
        case.path_parameters = {**case.path_parameters, "id": str(uuid4())}
