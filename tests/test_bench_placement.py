"""Where ``specbid bench server`` puts each match's sockets over several processes (OPERATIONS.md
"Running it for real"): ``apart`` relays the second seat and the spectator, ``owner`` relays
nothing, so that the two runs of one load price the relay."""

from __future__ import annotations

import pytest

from spectacular_bid.bench.server_driver import Driver, Placement
from spectacular_bid.bench.server_players import Stats
from spectacular_bid.cli import build_parser


def _servers(placement: Placement, count: int, index: int) -> list[int]:
    bases = [f"http://127.0.0.1:{8000 + n}" for n in range(count)]
    driver = Driver(bases, Stats(), (0, 0), 1, placement)
    return [driver.server_of(index, seat) for seat in (0, 1, 2)]


@pytest.mark.parametrize("count", [2, 3])
def test_apart_puts_the_second_seat_and_the_spectator_on_the_next_process(count: int) -> None:
    for index in range(7):
        own, next_one = index % count, (index + 1) % count
        assert _servers(Placement.APART, count, index) == [own, next_one, next_one]


@pytest.mark.parametrize("count", [2, 3])
def test_owner_puts_every_socket_on_the_process_that_made_the_match(count: int) -> None:
    for index in range(7):
        assert _servers(Placement.OWNER, count, index) == [index % count] * 3


@pytest.mark.parametrize("placement", list(Placement))
def test_one_process_serves_every_socket_whatever_the_placement(placement: Placement) -> None:
    assert _servers(placement, 1, 5) == [0, 0, 0]


def test_the_placement_flag_defaults_to_apart_and_refuses_others(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = build_parser()
    assert parser.parse_args(["bench", "server"]).placement == "apart"
    assert parser.parse_args(["bench", "server", "--placement", "owner"]).placement == "owner"
    with pytest.raises(SystemExit):
        parser.parse_args(["bench", "server", "--placement", "nearest"])
    assert "invalid choice: 'nearest'" in capsys.readouterr().err
