"""Schemathesis hooks for scripts/outside-checks.sh (loaded through SCHEMATHESIS_HOOKS).

An Idempotency-Key must be new for each new request (the same key with another request is
a 422, by the IETF draft): a rule about the server's state that no schema can state, and
Hypothesis repeats short strings often. So every generated key is made unique here; whether
a request sends one at all is still Hypothesis's choice.
"""

import uuid

import schemathesis


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if case.headers and "Idempotency-Key" in case.headers:
        case.headers["Idempotency-Key"] = str(uuid.uuid4())
