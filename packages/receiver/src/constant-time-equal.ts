/**
 * How a runtime compares two byte strings of the same length in constant time: node:crypto's
 * `timingSafeEqual` in Node, a loop without early exit elsewhere. The token checker is written
 * once over it.
 */
export type ConstantTimeEqual = (a: Uint8Array, b: Uint8Array) => boolean;
