/**
 * Base64 with or without its `=` padding, as secrets are written by hand and by other libraries
 * (the Python library and the npm `standardwebhooks` accept both). A length of 1 modulo 4 can be
 * no encoding at all.
 */
export function isBase64(text: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return false;
  const padded = text.endsWith("=");
  return padded ? text.length % 4 === 0 : text.length % 4 !== 1;
}

/** Decodes base64 (padding optional) with the platform's `atob`, so it runs in every runtime. */
export function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  // Stryker disable next-line EqualityOperator: equivalent: a write one past the end of a typed array is ignored
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] as number);
  return btoa(binary);
}
