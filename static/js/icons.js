// Small line icons as inline SVG (no icon font, no emoji: they look the same everywhere).

import { s } from "./dom.js";

const PATHS = {
  link: ["M9 15l6-6", "M11 6l1-1a4.2 4.2 0 0 1 6 6l-1 1", "M13 18l-1 1a4.2 4.2 0 0 1-6-6l1-1"],
  megaphone: ["M3 10.5v3a1 1 0 0 0 1 1h2.5L12 19V5L6.5 9.5H4a1 1 0 0 0-1 1z", "M15.5 9a4 4 0 0 1 0 6", "M18.5 6a8 8 0 0 1 0 12"],
  device: ["M8 2.5h8a2 2 0 0 1 2 2v15a2 2 0 0 1-2 2H8a2 2 0 0 1-2-2v-15a2 2 0 0 1 2-2z", "M11 18h2"],
  eye: ["M2 12s3.6-6.5 10-6.5S22 12 22 12s-3.6 6.5-10 6.5S2 12 2 12z", "M12 9a3 3 0 1 1 0 6 3 3 0 0 1 0-6z"],
  trophy: ["M8 4h8v5a4 4 0 0 1-8 0V4z", "M8 6H5a3 3 0 0 0 3 4", "M16 6h3a3 3 0 0 1-3 4", "M12 13v4", "M8 20h8"],
  clock: ["M12 3a9 9 0 1 1 0 18 9 9 0 0 1 0-18z", "M12 7v5l3 2"],
  chip: ["M12 3a9 9 0 1 1 0 18 9 9 0 0 1 0-18z", "M12 7.5a4.5 4.5 0 1 1 0 9 4.5 4.5 0 0 1 0-9z", "M12 3v3", "M12 18v3", "M3 12h3", "M18 12h3"],
  fives: ["M5 4h14v16H5z", "M5 12h14", "M9 7.5h.01", "M15 7.5h.01", "M12 8h.01", "M9 16.5h.01", "M15 16.5h.01"],
  stop: ["M7 7h10v10H7z"],
  flag: ["M6 21V4", "M6 4h11l-2.5 4L17 12H6"],
  first: ["M6 6v12", "M17 6l-6 6 6 6"],
  last: ["M18 6v12", "M7 6l6 6-6 6"],
  back: ["M15 6l-6 6 6 6"],
  forward: ["M9 6l6 6-6 6"],
  play: ["M8 5.5l11 6.5-11 6.5z"],
  pause: ["M8 5v14", "M16 5v14"],
  mute: ["M3 10.5v3a1 1 0 0 0 1 1h2.5L12 19V5L6.5 9.5H4a1 1 0 0 0-1 1z", "M16 9l5 6", "M21 9l-5 6"],
  chat: ["M4 5h16v11H9l-5 4z"],
  cpu: ["M7 7h10v10H7z", "M10 10h4v4h-4z", "M9.5 3v4", "M14.5 3v4", "M9.5 17v4", "M14.5 17v4", "M3 9.5h4", "M3 14.5h4", "M17 9.5h4", "M17 14.5h4"],
  bell: ["M6 16V11a6 6 0 0 1 12 0v5l2 2H4z", "M10 20a2 2 0 0 0 4 0"],
};

export function icon(name, className = "icon") {
  return s(
    "svg",
    {
      class: className,
      "data-icon": name,
      viewBox: "0 0 24 24",
      fill: "none",
      stroke: "currentColor",
      "stroke-width": "2",
      "stroke-linecap": "round",
      "stroke-linejoin": "round",
      "aria-hidden": "true",
      focusable: "false",
    },
    (PATHS[name] || []).map((d) => s("path", { d })),
  );
}
