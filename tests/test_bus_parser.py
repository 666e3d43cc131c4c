"""The Redis bus reads what Redis sends through hiredis's parser (issue 13: the relay's cost).

Every version of a match relayed between processes is published once and read by each
subscribed process; redis-py's own parser, in Python, took about half of that: publishing and
reading a 650-byte message cost 67 µs of CPU with it and 31 µs with hiredis on this machine.
redis-py picks hiredis by itself when it is installed (the ``redis[hiredis]`` extra), and falls
back without a word when it is not: this test is what notices.
"""

from __future__ import annotations

from redis._parsers import _AsyncHiredisParser
from redis.asyncio.connection import DefaultParser

from spectacular_bid.bus.redis import RedisBus


async def test_the_bus_parses_with_hiredis() -> None:
    bus = RedisBus("redis://127.0.0.1:1/0")  # no connection is made before a send or a listen
    await bus.start()
    try:
        assert bus._client is not None
        assert "parser_class" not in bus._client.connection_pool.connection_kwargs
        assert DefaultParser is _AsyncHiredisParser
    finally:
        await bus.close()
