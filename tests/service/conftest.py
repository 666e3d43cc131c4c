from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .helpers import Tables
from .replayed import stored_matches as stored_matches


@pytest.fixture
async def tables() -> AsyncIterator[Tables]:
    opened = Tables()
    yield opened
    await opened.close()
