import { show } from "./show.js";

/** The page's element with this id; a page's script runs below its body, so a missing one is a bug. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`no element #${id}`);
  return node as T;
}

/** The value of the form control with this id. */
export const fieldValue = (id: string): string => byId<HTMLInputElement | HTMLSelectElement>(id).value;

export type Attributes = {
  /** Put in with `textContent`, after `show()`, cut at `max`. */
  text?: unknown;
  max?: number;
  className?: string;
} & Record<string, unknown>;

type Child = Node | null | undefined | false;

/** An element built with attributes and `textContent` only: markup is never built from text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attributes,
  children?: Child[],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (name === "text") node.textContent = show(value, attrs?.max);
    else if (name === "max") continue;
    else if (name === "className") node.className = String(value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children ?? []) if (child) node.appendChild(child);
  return node;
}

export function button(label: string, action: string, onClick: (node: HTMLButtonElement) => void) {
  const node = el("button", { type: "button", "data-action": action, text: label });
  node.addEventListener("click", () => onClick(node));
  return node;
}

/**
 * The status line (`#status`) and the body's `data-<bodyKey>`, which the page's styles and tests read.
 */
export function setStatus(state: string, text: string, bodyKey = "state"): void {
  const status = byId("status");
  status.dataset.state = state;
  status.textContent = text;
  document.body.dataset[bodyKey] = state;
}

/** The page's `#notice`, hidden when empty. */
export function notice(text: string): void {
  const node = byId("notice");
  node.hidden = !text;
  node.textContent = show(text);
}
