// The replay's record: "Download the record" saves the match's record file, and "Verify" has the
// server re-run it through the match machine exactly as `specbid replay --verify` does
// (POST /api/records/verify), for the match's own record or a record file the person chooses.
// The page only shows the answer: it checks nothing itself.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { ApiError, readRecord, verifyRecord } from "./api.js";

export class RecordCheck {
  constructor(matchId) {
    this.matchId = matchId;
    this.busy = false;
    this.answer = null; // the last answer shown, redrawn on a change of language
    this.download = h("a", {
      class: "btn btn-ghost btn-small",
      "data-action": "download-record",
      href: `/api/matches/${encodeURIComponent(matchId)}/record`,
      download: `spectacular-bid-${matchId}.json`,
    });
    this.verify = h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "verify-record", onclick: () => this.check(null) });
    this.file = h("input", { type: "file", id: "verify-file", class: "sr-only", accept: ".json,application/json" });
    this.file.addEventListener("change", () => {
      const chosen = this.file.files && this.file.files[0];
      this.file.value = ""; // the same file may be chosen again
      if (chosen) this.check(chosen);
    });
    this.fileLabel = h("label", { class: "btn btn-ghost btn-small", for: "verify-file" });
    this.controls = h("div", { class: "record-actions" }, this.download, this.verify, this.fileLabel, this.file);
    this.result = h("p", { id: "verify-result", class: "verify-result", role: "status", hidden: true });
    this.render();
  }

  /** Verify the match's own record (file null) or a chosen file's text. */
  async check(file) {
    if (this.busy) return;
    this.busy = true;
    this.show({ state: "checking" });
    try {
      const text = file ? await file.text() : JSON.stringify(await readRecord(this.matchId));
      this.show({ state: "answered", answer: await verifyRecord(text) });
    } catch (err) {
      this.show({ state: "refused", err });
    } finally {
      this.busy = false;
    }
  }

  show(answer) {
    this.answer = answer;
    this.render();
  }

  render() {
    this.download.textContent = t("verify.download");
    this.verify.textContent = t("verify.verify");
    this.fileLabel.textContent = t("verify.verify_file");
    const shown = this.answer;
    this.result.hidden = !shown;
    if (!shown) return;
    const answer = shown.answer;
    let verified = null;
    let text;
    if (shown.state === "checking") text = t("verify.checking");
    else if (shown.state === "refused") text = refusalText(shown.err);
    else if (answer.verified) {
      verified = true;
      text = `${t("verify.ok")} (${t("verify.ok_detail", { versions: answer.versions, rounds: answer.rounds })})`;
    } else {
      verified = false;
      const d = answer.discrepancy;
      const where = d.version != null ? t("verify.at_version", { v: d.version }) : d.where;
      text = t("verify.failed", { where, field: d.field, expected: d.expected, found: d.found });
    }
    this.result.dataset.verified = verified === null ? "" : String(verified);
    fill(this.result, text);
  }
}

function refusalText(err) {
  if (err instanceof ApiError && err.code === "rate_limited") return t("verify.busy", { s: err.retryAfterS ?? 1 });
  if (err instanceof ApiError && (err.code === "bad_message" || err.code === "too_large")) return t("verify.not_record", { message: err.message });
  return t("verify.error");
}
