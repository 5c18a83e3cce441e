"""Properties of the signed-URL rule: a signature verifies however the client orders and
encodes the same values, and fails as soon as anything changes."""

from __future__ import annotations

import hashlib
import hmac
import re
from urllib.parse import parse_qsl, quote, quote_plus, urlencode

import pytest

pytestmark = pytest.mark.slow

pytest.importorskip("hypothesis")

from hypothesis import given
from hypothesis import strategies as st

from templatekit_server.sealing import Sealer
from templatekit_server.signing import canonical, form_encode, signature, valid

names = st.sampled_from(["templateId", "modifications", "format", "expires", "apiKeyHashed", "nocache", "x y", "ü"])
values = st.text(max_size=40)
queries = st.dictionaries(names, values, min_size=1, max_size=6)
keys = st.text(min_size=1, max_size=60)


def whatwg(text: str) -> str:
    """URLSearchParams' encoding, as a JavaScript client makes it."""
    return quote_plus(text, safe="*").replace("~", "%7E")


def lower_escapes(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda escape: escape.group(0).lower(), text)


@given(queries, keys, st.randoms())
def test_any_order_and_any_encoding_of_the_same_values_verifies(query, key, random):
    reference = "&".join(f"{whatwg(k)}={whatwg(v)}" for k, v in sorted(query.items()))
    assert canonical(query.items()) == reference
    sign = hmac.new(key.encode(), reference.encode(), hashlib.sha256).hexdigest()
    pairs = list(query.items())
    random.shuffle(pairs)
    for spelled in (
        urlencode(pairs),  # Python's form encoding
        "&".join(f"{quote(k, safe='')}={quote(v, safe='~')}" for k, v in pairs),  # %20, bare ~
        "&".join(f"{quote(k, safe='')}={lower_escapes(quote(v, safe=''))}" for k, v in pairs),  # %c3%a9
    ):
        decoded = parse_qsl(spelled, keep_blank_values=True)
        assert valid(key, canonical(decoded), sign)
        assert valid(key, canonical(decoded), sign.upper())


@given(queries, keys, st.data())
def test_any_change_of_a_value_a_name_or_the_key_fails(query, key, data):
    text = canonical(query.items())
    sign = signature(key, text)
    name = data.draw(st.sampled_from(sorted(query)))
    changed = data.draw(values.filter(lambda value: value != query[name]))
    assert not valid(key, canonical({**query, name: changed}.items()), sign)
    assert not valid(key, canonical({**query, name + "x": query[name]}.items()), sign)
    other = data.draw(keys.filter(lambda other: other != key))
    assert not valid(other, text, sign)


@given(st.text(max_size=80))
def test_a_signature_of_any_text_is_an_answer_not_a_crash(given_sign):
    assert valid("key", "a=b", given_sign) is (given_sign.lower() == signature("key", "a=b"))
    sealer = Sealer("secret")
    assert sealer.file_signature_valid("images/a.png", None, given_sign) is (
        given_sign == sealer.file_signature("images/a.png", None)
    )


def test_the_encoding_keeps_what_whatwg_keeps():
    assert form_encode("a b~*-._é/+") == "a+b%7E*-._%C3%A9%2F%2B"
