import json from "../vectors.json" with { type: "json" };
import type { TestVector } from "./test-vector.js";

/** Signing vectors shared by sender and receiver tests: the same data as `@plant-store/spec/vectors.json`. */
export const vectors: readonly TestVector[] = json as readonly TestVector[];
