import { byId } from "./by-id.js";
import { show } from "./show.js";

/** The page's `#notice`, hidden when empty. */
export function notice(text: string): void {
  const node = byId("notice");
  node.hidden = !text;
  node.textContent = show(text);
}
