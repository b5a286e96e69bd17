"""The address check the webhooks and the LLM judge share (`common/addresses.py`): an
IPv6 address carrying an IPv4 one (NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, mapped) is
judged as that IPv4 address (issue 44, item 10)."""

from __future__ import annotations

from ipaddress import ip_address

import pytest

from grounding_app.common.addresses import RefusedAddress, refuse

SETTING = "MONITORING_WEBHOOK_ALLOW"


def _refusal(address: str, allow: tuple[str, ...] = (), host: str = "") -> str:
    """The refusal's message, or "" when the address may be reached."""
    try:
        refuse(host or address, ip_address(address), allow, SETTING)
    except RefusedAddress as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize(
    ("address", "carried"),
    [
        ("64:ff9b::7f00:1", "127.0.0.1"),  # NAT64 of loopback
        ("64:ff9b::a00:1", "10.0.0.1"),
        ("64:ff9b::ac10:1", "172.16.0.1"),
        ("64:ff9b::c0a8:101", "192.168.1.1"),
        ("64:ff9b::6440:1", "100.64.0.1"),  # carrier-grade NAT
        ("64:ff9b::", "0.0.0.0"),
        ("2002:7f00:1::", "127.0.0.1"),  # 6to4 of loopback
        ("2002:a00:1::1", "10.0.0.1"),
        ("2002:ac10:1::", "172.16.0.1"),
        ("2002:c0a8:101:1::5", "192.168.1.1"),
    ],
)
def test_an_ipv6_address_carrying_an_internal_ipv4_one_is_refused(
    address: str, carried: str
) -> None:
    assert _refusal(address) == (
        f"{address} is an internal address (it carries {carried}); an admin may allow it"
        f" with {SETTING}"
    )


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b:1::a00:1",  # NAT64 for local use (RFC 8215): a site's own translator
        "::ffff:10.0.0.1",
        "::1",
        "fc00::1",
        "10.0.0.1",
        "127.0.0.1",
    ],
)
def test_other_internal_addresses_are_refused(address: str) -> None:
    assert "is an internal address;" in _refusal(address)


@pytest.mark.parametrize("address", ["64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::", "169.254.169.254"])
def test_a_carried_metadata_address_is_refused_whatever_the_list_says(address: str) -> None:
    assert "metadata" in _refusal(address, allow=("0.0.0.0/0", "::/0", address))


@pytest.mark.parametrize(
    "address",
    ["64:ff9b::808:808", "2002:808:808::1", "8.8.8.8", "2606:4700:4700::1111"],
)
def test_public_addresses_pass_carried_or_not(address: str) -> None:
    assert _refusal(address) == ""


@pytest.mark.parametrize(
    ("allow", "host", "reached"),
    [
        (("10.0.0.0/8",), "", True),  # the carried IPv4 address's network
        (("64:ff9b::/96",), "", True),  # the IPv6 network itself
        (("hooks.internal",), "hooks.internal", True),  # the host by name
        (("192.168.0.0/16",), "", False),
        (("2002::/16",), "", False),
    ],
)
def test_the_allow_list_may_name_either_form(
    allow: tuple[str, ...], host: str, reached: bool
) -> None:
    assert (_refusal("64:ff9b::a00:1", allow, host) == "") is reached
