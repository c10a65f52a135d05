/**
 * A table body's rows kept by key: a row is rebuilt only when what it shows (its item as JSON) changed,
 * and moved only when its place did, so buttons stay put between polls.
 */
export function syncRows<T>(
  tbody: HTMLElement,
  items: readonly T[],
  key: (item: T) => string,
  build: (item: T) => HTMLElement,
): void {
  const keep = new Map<string | undefined, HTMLElement>();
  for (const row of Array.from(tbody.children) as HTMLElement[]) {
    if (keep.has(row.dataset.key)) row.remove();
    else keep.set(row.dataset.key, row);
  }
  let before = tbody.firstChild;
  for (const item of items) {
    const id = key(item);
    const json = JSON.stringify(item);
    let row = keep.get(id);
    keep.delete(id);
    if (!row || row.dataset.json !== json) {
      const fresh = build(item);
      fresh.dataset.key = id;
      fresh.dataset.json = json;
      if (row) {
        if (before === row) before = fresh;
        tbody.replaceChild(fresh, row);
      }
      row = fresh;
    }
    if (row !== before) tbody.insertBefore(row, before);
    before = row.nextSibling;
  }
  for (const row of keep.values()) row.remove();
}
