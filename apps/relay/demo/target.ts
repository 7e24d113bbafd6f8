/** Where a demo page publishes or watches, from its query string. */
export interface DemoTarget {
  /** The relay URL with the connection's scope as its path, e.g. `http://host:4443/demo`. */
  readonly url: string;
  /** The broadcast name inside the scope. */
  readonly name: string;
}

/**
 * `?relay=` (default: the relay that served the page), `?scope=` (default `demo`) and `?name=`
 * (default `pattern.hang`; the `.hang` suffix names the catalog format to the watcher).
 */
export function demoTarget(location: Location): DemoTarget {
  const query = new URLSearchParams(location.search);
  const relay = (query.get("relay") ?? location.origin).replace(/\/+$/, "");
  const scope = (query.get("scope") ?? "demo").replace(/^\/+/, "");
  return { url: `${relay}/${scope}`, name: query.get("name") ?? "pattern.hang" };
}

/**
 * Whether this page runs its `half` (`publish` or `watch`): both by default, one with `?only=`
 * (so one browser can publish and another watch). A half that does not run is taken off the page.
 */
export function runs(half: "publish" | "watch", location: Location): HTMLElement | undefined {
  const only = new URLSearchParams(location.search).get("only");
  const section = document.getElementById(half) ?? undefined;
  if (only === null || only === half) return section;
  section?.remove();
  return undefined;
}

/** Shows `text` in the element `id` and mirrors it in its `data-state` (what the e2e test waits for). */
export function show(id: string, text: string): void {
  const el = document.getElementById(id);
  if (el === null || el.dataset["state"] === text) return;
  el.dataset["state"] = text;
  el.textContent = text;
}
