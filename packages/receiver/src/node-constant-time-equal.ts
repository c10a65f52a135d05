import { timingSafeEqual } from "node:crypto";
import type { ConstantTimeEqual } from "./constant-time-equal.js";

/** node:crypto's comparison, documented to take the same time whatever the bytes hold. */
export const nodeConstantTimeEqual: ConstantTimeEqual = (a, b) => timingSafeEqual(a, b);
