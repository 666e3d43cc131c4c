// The render pass of the match page: every part redrawn from the store's last view (after each
// change, a language switch, an error), the table last, once the header around it is drawn.

import { h, fill, other, setAttr } from "../dom.js";
import { t } from "../i18n.js";
import { readChat, readRematch } from "../api.js";
import { renderSeat } from "../seats.js";
import { renderAuction } from "../auction.js";
import { renderRoundCard, renderResult, renderInvite, renderJoin, renderLate } from "../panels.js";
import { seatName } from "../narrate.js";
import { computerSeatName } from "../computer.js";
import { icon } from "../icons.js";
import { renderRatedMark } from "../rating.js";
import { endsParts } from "../ends.js";
import { renderCues } from "./cues.js";
import { renderSide } from "./side.js";
import { bannerText, renderTitle, titleText } from "./title.js";
import { renderBoardOnly, renderHandArea, renderHandover, renderLog, seats, tick } from "./table.js";

export function renderAll(view) {
  const match = view.store.match;
  if (!match || !view.dom) return;
  const dom = view.dom;
  setAttr(dom, "data-audience", match.audience);
  setAttr(dom, "data-phase", match.phase);
  setAttr(dom, "data-status", match.status);
  setAttr(dom, "data-version", String(view.store.version));
  setAttr(dom, "data-mode", match.mode);
  setAttr(dom, "data-my-turn", match.legal ? "true" : "false");
  renderHeader(view, match);
  renderPanels(view, match);
  renderEnds(view, match);
  const inRound = ["auction", "opening", "playing"].includes(match.phase);
  dom.querySelector(".boneyard").hidden = !inRound;
  dom.querySelector(".boneyard-label").textContent = t("match.boneyard");
  dom.querySelector("#boneyard-count").textContent = String(match.boneyard_count ?? 0);

  renderHandArea(view, match);
  renderHandover(view, match);
  // Last: the felt's size is measured once the table around it is drawn.
  renderBoardOnly(view);
  renderLog(view);
  tick(view);
}

/** The header: title, players, connection, rated mark, spectators, Resign. */
function renderHeader(view, match) {
  const dom = view.dom;
  const names = `${seatName(match, "first")} – ${seatName(match, "second")}`;
  dom.querySelector(".match-title").textContent = titleText(match);
  dom.querySelector(".match-sub").textContent = `${names} · ${t(`mode.${match.mode}`)}`;
  renderTitle(view, match);
  renderConnection(view);

  renderRatedMark(dom.querySelector(".match-meta"), match);
  const spectators = dom.querySelector("#spectators");
  fill(spectators, icon("eye", "icon icon-inline"), " ", h("span", { class: "count" }, String(match.spectators || 0)), " ", h("span", { class: "spectators-word" }, t("match.spectators", { n: match.spectators || 0 })));

  const resign = dom.querySelector("[data-action=resign]");
  resign.hidden = !(match.audience !== "spectator" && match.status === "active");
  if (resign.hidden) view.confirmation.close(); // the match ended while the question stood
  // An icon and a word; a phone shows the icon only (the word stays its name).
  if (resign.dataset.lang !== document.documentElement.lang) {
    resign.dataset.lang = document.documentElement.lang;
    fill(resign, icon("flag"), h("span", { class: "btn-label" }, t("match.resign")));
    resign.title = t("match.resign");
  }
}

/** The seats, the banner and the cards: join, invitation, late visitor, auction, round,
 * result, chat, cues, drawer, rematch. */
function renderPanels(view, match) {
  const dom = view.dom;
  renderOpponentStatus(view, match);
  renderJoin(dom.querySelector("#join-panel"), {
    visible: view.joinOffered && match.audience === "spectator" && match.status === "waiting",
    // A visitor who opens the invitation of a full match is told why there is no Join button.
    full: match.audience === "spectator" && match.status === "active" && match.mode !== "shared",
    hasName: !!view.me,
    onJoin: (name) => view.input.join(name),
  });
  renderInvite(dom.querySelector("#invite-panel"), match);
  renderLate(dom.querySelector("#late-panel"), match, { hasName: !!view.me, onAgain: (mode, name) => view.input.again(mode, name) });

  const { bottom, top } = seats(view);
  const isPlayer = match.audience === "first" || match.audience === "second";
  renderSeat(dom.querySelector(".seat-top"), match, top, { backs: true, countId: "opponent-count", isYou: false });
  renderSeat(dom.querySelector(".seat-bottom"), match, bottom, {
    backs: match.audience === "spectator" || !match.hand,
    countId: null,
    isYou: isPlayer && bottom === match.viewer,
  });

  const banner = dom.querySelector("#turn-banner");
  banner.textContent = bannerText(match);
  setAttr(banner, "data-mine", match.legal ? "true" : "false");

  const ctx = {
    onCommand: (command) => view.input.send(command),
    confirm: (question, yes) => view.confirmation.ask(question, yes),
    version: view.store.version,
    roundEvents: view.store.roundEvents,
    commitments: view.store.commitments,
  };
  renderAuction(dom.querySelector("#auction"), match, ctx);
  renderRoundCard(dom.querySelector("#round-card"), match, ctx);
  renderResult(dom.querySelector("#result"), match);
  renderChat(view, match);
  renderCues(view);
  renderSide(view);
  renderRematch(view, match);
}

export function renderConnection(view) {
  if (!view.dom) return;
  const el = view.dom.querySelector("#connection");
  el.dataset.state = view.connState;
  el.querySelector(".conn-icon").textContent = { online: "●", reconnecting: "◐", offline: "○" }[view.connState] || "○";
  el.querySelector(".conn-text").textContent = t(`connection.${view.connState}`);
  const spare = view.dom.querySelector(".handover-conn");
  if (spare) spare.textContent = view.connState === "online" ? "" : t(`connection.${view.connState}`);
}

function renderOpponentStatus(view, match) {
  const el = view.dom.querySelector("#opponent-status");
  let text = "";
  if (match.status === "active" && match.mode !== "shared") {
    const seated = match.audience === "first" || match.audience === "second" ? [other(match.audience)] : ["first", "second"];
    const lines = [];
    for (const seat of seated) {
      const player = match.players && match.players[seat];
      if (!player || player.online || computerSeatName(match, seat)) continue;
      const running = match.clock && match.clock.running === seat;
      const key = match.audience === "spectator" ? (running ? "match.player_offline_running" : "match.player_offline") : (running ? "match.opponent_offline_running" : "match.opponent_offline");
      lines.push(t(key, { name: player.name }));
    }
    text = lines.join(" ");
  }
  el.textContent = text;
  el.hidden = !text;
}

/** The last tile and the scoring ends' sum with its award, as the server counted them. */
function renderEnds(view, match) {
  const el = view.dom.querySelector("#ends");
  const board = match.board;
  if (!board || !board.tiles || !board.tiles.length || (match.audience === "device" && match.handover)) {
    el.hidden = true;
    fill(el);
    return;
  }
  el.hidden = false;
  fill(el, endsParts(board));
}

/** The rematch box of an ended match; its state is read once, for an offer made before this
 * page connected, and then follows the `rematch` messages. */
function renderRematch(view, match) {
  view.rematch.render(match);
  const ended = match.status === "finished" || match.status === "aborted";
  if (!ended || view.rematchRead) return;
  view.rematchRead = true;
  readRematch(view.id)
    .then((state) => {
      if (!view.destroyed) view.rematch.update(state);
    })
    .catch(() => {}); // too long ago, or a shared device: no rematch to show
}

/** The chat panel; once the match has ended both channels are shown, so they are read once. */
function renderChat(view, match) {
  view.chat.render(match);
  const ended = match.status === "finished" || match.status === "aborted";
  if (!ended || view.chatRead) return;
  view.chatRead = true;
  readChat(view.id)
    .then((history) => {
      if (!view.destroyed) view.chat.add(history.lines || []);
    })
    .catch(() => {}); // the lines said live are shown already
}
