"""Numbers in a query longer than any integer type, against the real daemon: a listing's
`limit` with more digits than 64 bits hold is capped at the maximum like any other limit
over it, not refused, and the daemon keeps serving.
"""

from __future__ import annotations

import json

import pytest

from http_raw import fetch


@pytest.mark.parametrize("limit", ["999999999999999999999", "9223372036854775808", "1" + "0" * 400,
                                   "000000000000000000000000000000000000000000100000"])
def test_an_overlong_limit_is_capped_like_a_long_one(daemon, limit):
    capped = fetch(daemon.url + "/files/?format=json&limit=100000")
    assert capped.status == 200, capped
    overlong = fetch(daemon.url + f"/files/?format=json&limit={limit}")
    assert overlong.status == 200, overlong
    assert json.loads(overlong.body)["entries"] == json.loads(capped.body)["entries"]
    assert fetch(daemon.url + "/files/?format=json&limit=ten").status == 400
