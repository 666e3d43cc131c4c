// The line under the board: the last tile laid and the scoring ends' sum with its award (R3.5),
// as the server counted them (the view's board), on the match page and in the replay alike.

import { h, tileLabel } from "./dom.js";
import { t } from "./i18n.js";

/** The line's three parts for a board with at least one tile. */
export function endsParts(board) {
  const values = (board.scoring_ends || []).map((e) => e[1]);
  const sum = values.length ? `${values.join(" + ")} = ${board.ends_sum}` : String(board.ends_sum);
  const last = board.tiles[board.tiles.length - 1];
  return [
    h("span", { class: "ends-last" }, t("ends.last", { tile: tileLabel(last) })),
    h("span", { class: "ends-sum" }, h("span", { class: "ends-label" }, t("ends.label")), " ", h("strong", {}, sum)),
    board.award > 0
      ? h("span", { class: "ends-award is-award" }, `✦ ${t("ends.award", { n: board.award })}`)
      : h("span", { class: "ends-award" }, t("ends.no_award")),
  ];
}
