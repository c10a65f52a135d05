import { byId } from "./by-id.js";

/**
 * The status line (`#status`) and the body's `data-<bodyKey>`, which the page's styles and tests read.
 */
export function setStatus(state: string, text: string, bodyKey = "state"): void {
  const status = byId("status");
  status.dataset.state = state;
  status.textContent = text;
  document.body.dataset[bodyKey] = state;
}
