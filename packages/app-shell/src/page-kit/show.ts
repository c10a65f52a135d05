// Control characters (NUL included), line and paragraph separators, bidirectional controls
// (U+061C, U+200E-F, U+202A-E, U+2066-9) and invisible characters (U+00AD, U+180E, U+200B-D,
// U+2060-4, U+FEFF) shown as \u escapes, so hostile text can neither hide, reorder nor break lines:
// a URL ending "?x=\u202Egnp.exe" must not read as one ending in ".png".
const HIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const asEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * Any value as text to put in through `textContent`: null and undefined as nothing, cut at `max`
 * characters, every hidden character escaped but line feeds (answers and notices keep their lines).
 */
export function show(value: unknown, max?: number): string {
  let text = value === null || value === undefined ? "" : String(value);
  if (max && text.length > max) text = `${text.slice(0, max)}…`;
  return text.replace(HIDDEN, (c) => (c === "\n" ? "\n" : asEscape(c)));
}

/** One line of text (a name): line feeds escaped too. */
export function showLine(value: unknown): string {
  return String(value).replace(HIDDEN, asEscape);
}
