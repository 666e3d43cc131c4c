// Where a file of the client is fetched from: the page names each one's content-hashed name in
// a JSON block (#client-assets), which the browser may keep for good; a file it does not name is
// asked for by its own path (docs/PROTOCOL.md, "Caching and compression").

let names = null;

/** The URL of the client's file at path, e.g. assetUrl("i18n/en.json"). */
export function assetUrl(path) {
  if (names === null) {
    try {
      names = JSON.parse(document.getElementById("client-assets")?.textContent || "{}");
    } catch {
      names = {};
    }
  }
  return names[path] || `/${path}`;
}
