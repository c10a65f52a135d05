import { show } from "./show.js";

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
