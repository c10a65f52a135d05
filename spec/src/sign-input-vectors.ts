import json from "../sign-input-vectors.json" with { type: "json" };
import type { SignInputVector } from "./test-vector.js";

/** Inputs every signer must refuse: the same data as `@plant-store/spec/sign-input-vectors.json`. */
export const signInputVectors: readonly SignInputVector[] = json as readonly SignInputVector[];
