/** The page's element with this id; a page's script runs below its body, so a missing one is a bug. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`no element #${id}`);
  return node as T;
}

/** The value of the form control with this id. */
export const fieldValue = (id: string): string => byId<HTMLInputElement | HTMLSelectElement>(id).value;
