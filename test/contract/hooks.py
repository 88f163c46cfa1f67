"""Schemathesis hooks for `npm run fuzz` (loaded by test/contract/schemathesis.toml).

GET /activations/records: `to` must be at or after `from`, a rule between two query parameters
that JSON Schema cannot state. Generated pairs that break it are dropped instead of letting the
operation answer 400 unchecked: every other VALIDATION_ERROR there still fails the run.
"""

from datetime import datetime

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
