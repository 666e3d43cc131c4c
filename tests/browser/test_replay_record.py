"""The replay downloads its record and verifies it in the page: "Download the record" saves the
match's record file, "Verify" has the server re-run it exactly as ``specbid replay --verify``
does and says it checks out, and a record file the person chooses is checked the same way, a
tampered one answered with its first discrepancy (its version, field, expected and found)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .ui import api_guest

pytestmark = pytest.mark.browser

RECORD = Path(__file__).resolve().parents[1] / "golden" / "records" / "v2_rated_resign.json"


def test_the_replay_downloads_and_verifies_its_record(tabs: Tabs, tmp_path: Path) -> None:
    viewer = tabs.open("viewer")
    api_guest(viewer, "Vera")
    document = json.loads(RECORD.read_text(encoding="utf-8"))
    match_id = viewer.api_post("/api/records", document)["id"]
    page = viewer.page
    page.goto(f"{viewer.base_url}/replay/{match_id}")
    expect(page.locator("#replay-moves li.move").first).to_be_attached()

    with page.expect_download() as downloading:
        page.locator("[data-action=download-record]").click()
    download = downloading.value
    assert download.suggested_filename.endswith(".json")
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    kept = json.loads(saved.read_text(encoding="utf-8"))
    assert kept == viewer.api(f"/api/matches/{match_id}/record")

    result = page.locator("#verify-result")
    page.locator("[data-action=verify-record]").click()
    expect(result).to_have_attribute("data-verified", "true")
    expect(result).to_contain_text("Verified: every move, clock and deck commitment checks out")

    # A file of one's own: the same record with a second taken off a bank at version 20.
    tampered = copy.deepcopy(kept)
    version = tampered["versions"][19]
    bank = version["clock"]["bank_left_ms"]["second"]
    version["clock"]["bank_left_ms"]["second"] = bank - 1000
    chosen = tmp_path / "tampered.json"
    chosen.write_text(json.dumps(tampered), encoding="utf-8")
    page.locator("#verify-file").set_input_files(str(chosen))
    expect(result).to_have_attribute("data-verified", "false")
    expect(result).to_contain_text(f"version {version['version']}")
    expect(result).to_contain_text("clock.bank_left_ms.second")
    expect(result).to_contain_text(f"expected {bank}, found {bank - 1000}")
    viewer.shot("replay-discrepancy")

    # The untouched file checks out again.
    page.locator("#verify-file").set_input_files(str(saved))
    expect(result).to_have_attribute("data-verified", "true")
