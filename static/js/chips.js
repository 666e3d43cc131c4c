// Points as 5-point chips: a balance drawn as towers of ten chips, and every transfer animated
// from the payer's stack to the receiver's with its reason (award, block, auction).

import { h, reducedMotion } from "./dom.js";
import { t } from "./i18n.js";

const PER_TOWER = 10;
const MAX_FLYING = 8;

/** Towers of chips for a balance (aria-hidden: the number beside it is the accessible value). */
export function chipStack(balance) {
  const chips = Math.floor(Math.max(0, balance) / 5);
  const towers = [];
  for (let i = 0; i < chips; i += PER_TOWER) {
    const n = Math.min(PER_TOWER, chips - i);
    const tower = h("span", { class: "chip-tower" });
    for (let k = 0; k < n; k++) tower.append(h("span", { class: "chip" }));
    towers.push(tower);
  }
  return h("span", { class: "chips", "aria-hidden": "true", "data-chips": String(chips) }, towers);
}

function centerOf(el) {
  const r = el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

/** Fly chips from the payer's balance to the payee's, with a label of the amount and reason. */
export function animateTransfer(event) {
  const from = document.querySelector(`[data-balance="${event.payer}"] .chips`) || document.querySelector(`[data-balance="${event.payer}"]`);
  const to = document.querySelector(`[data-balance="${event.payee}"] .chips`) || document.querySelector(`[data-balance="${event.payee}"]`);
  const target = document.querySelector(`[data-balance="${event.payee}"]`);
  if (!from || !to || !target) return;
  const reason = t(`transfer.${event.reason}`);
  const label = h("span", { class: `transfer-label reason-${event.reason}`, "aria-hidden": "true" }, `+${event.amount} · ${reason}`);
  const seat = target.closest(".seat");
  if (seat) {
    label.style.marginTop = `${-26 * seat.querySelectorAll(".transfer-label").length}px`;
    seat.append(label);
  }
  setTimeout(() => label.remove(), 2600);
  if (reducedMotion()) return;
  const a = centerOf(from);
  const b = centerOf(to);
  const count = Math.min(MAX_FLYING, Math.max(1, Math.round(event.amount / 5)));
  for (let i = 0; i < count; i++) {
    const chip = h("span", { class: "chip flying", "aria-hidden": "true" });
    chip.style.left = `${a.x}px`;
    chip.style.top = `${a.y}px`;
    document.body.append(chip);
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const lift = -40 - Math.random() * 30;
    const animation = chip.animate(
      [
        { transform: "translate(-50%, -50%) scale(1)", opacity: 0 },
        { transform: `translate(calc(-50% + ${dx * 0.5}px), calc(-50% + ${dy * 0.5 + lift}px)) scale(1.15)`, opacity: 1, offset: 0.5 },
        { transform: `translate(calc(-50% + ${dx}px), calc(-50% + ${dy}px)) scale(0.9)`, opacity: 0.2 },
      ],
      { duration: 720, delay: i * 70, easing: "cubic-bezier(.3,.7,.3,1)", fill: "both" },
    );
    animation.onfinish = () => chip.remove();
    animation.oncancel = () => chip.remove();
  }
}
