"""A panelist's forecast in its structured reply: the probability that the answer is yes.

One field for every protocol that asks for it (`forecast: yes-no` in a
question's front matter): `probability`, a number from 0 to 1, beside the
reply's other fields. A reply without it abstains from forecasting (nothing
is filled in, never a 0.5); one with a value that is not a number in 0..1
is refused, so the model is asked again, as any malformed reply is.
"""

from __future__ import annotations

import math
from typing import Any

from .jsonreply import ReplyError
from .replyschemas import FRACTION, Schema

PROBABILITY = "probability"
FORECAST_ASK = ('Also give "probability": your probability, from 0 to 1, that the answer to the question will turn '
                "out to be yes (0.5 only if you truly cannot lean either way); leave it out to abstain from "
                "forecasting.")


def probability_of(reply: dict[str, Any]) -> float | None:
    """The reply's probability of yes; None where it gives none. ReplyError for a value out of 0..1."""
    if PROBABILITY not in reply or reply[PROBABILITY] is None:
        return None
    value = reply[PROBABILITY]
    if isinstance(value, str):
        try:
            value = float(value.strip().removesuffix("%")) / (100 if value.strip().endswith("%") else 1)
        except ValueError:
            raise ReplyError(f"'{PROBABILITY}' must be a number from 0 to 1, not {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
            or not 0 <= value <= 1:
        raise ReplyError(f"'{PROBABILITY}' must be a number from 0 to 1, not {value!r}")
    return float(value)


def with_probability(schema: Schema) -> Schema:
    """A reply's schema that also takes the optional probability."""
    return {**schema, "properties": {**schema["properties"], PROBABILITY: FRACTION}}
