from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .helpers import Tables


@pytest.fixture
async def tables() -> AsyncIterator[Tables]:
    opened = Tables()
    yield opened
    await opened.close()
