import { type ComponentSchemaName, componentJsonSchema } from "@plant-store/spec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAjv } from "../test/ajv.js";
import { contractSchemas } from "../test/contract-schemas.js";
import { WebhookSignatureSchema } from "./webhook-headers.js";

// Differential test: ajv judging the spec and zod judging the same value must agree, for valid
// values, near-misses and junk. Every value goes through JSON first, because both sides only ever
// see what a JSON parser produced (no undefined, NaN, Infinity or -0 on the wire).
const RUNS = 3000;
const ajv = createAjv();

function wire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value) ?? "null");
}

/** Strings that tend to break length and pattern checks. */
const trickyString = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "a",
    "0",
    "-1",
    "1e3",
    "null",
    "v1,",
    "v1, v1,x",
    "msg_ü",
    "\u0000",
    "\ud800",
    "🌼",
  ),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.stringMatching(/^[\x21-\x7e]{1,300}$/),
  fc.stringMatching(/^[0-9]{0,20}$/),
  // Around the 4096-character signature limit, in ASCII and in astral characters.
  fc.integer({ min: 4090, max: 4100 }).map((n) => "a".repeat(n)),
  fc.integer({ min: 2040, max: 2060 }).map((n) => "🌼".repeat(n)),
  fc
    .array(fc.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/), { minLength: 1, maxLength: 4 })
    .map((sigs) => sigs.join(" ")),
);

/** Numbers around the int32 and safe-integer edges, and floats. */
const trickyNumber = fc.oneof(
  fc.constantFrom(
    0,
    1,
    -1,
    0.5,
    -0.5,
    1e300,
    -1e300,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    -(2 ** 31) - 1,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
    Number.MIN_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER - 1,
    2 ** 63,
  ),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const anyValue = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 2, arbitrary: trickyString },
  { weight: 2, arbitrary: trickyNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
);

const extraFields = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("__proto__", "constructor", "toString", "")),
  anyValue,
  { maxKeys: 3 },
);

/** A verification challenge: 16 to 256 base64url characters. */
const challenge = fc.stringMatching(/^[A-Za-z0-9_-]{16,256}$/);

/** A verification response: one `v1,` HMAC per secret, space-separated. */
const response = fc
  .array(fc.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(" "));

/** A pulled event of the events API (issue 40): headers a push carries over its exact body. */
const pulledEvent = fc.record({
  webhookId: fc.stringMatching(/^[\x21-\x7e]{1,256}$/),
  eventType: fc.option(fc.string(), { nil: null }),
  timestamp: fc.string(),
  headers: fc.record(
    {
      "webhook-id": fc.stringMatching(/^[\x21-\x7e]{1,256}$/),
      "webhook-timestamp": fc.stringMatching(/^[0-9]{1,15}$/),
      "webhook-signature": fc.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
      "webhook-event-type": fc.string(),
    },
    { requiredKeys: ["webhook-id", "webhook-timestamp", "webhook-signature"] },
  ),
  body: fc.string(),
});

/** Values that satisfy each schema, built by hand from the contract (not from either validator). */
const validValues: Record<ComponentSchemaName, fc.Arbitrary<unknown>> = {
  Plant: fc.record(
    { name: fc.string({ unit: "binary", minLength: 1 }), tag: fc.string({ unit: "binary" }) },
    { requiredKeys: ["name"] },
  ),
  NewPlant: fc.record(
    { id: fc.maxSafeInteger(), name: fc.string({ unit: "binary", minLength: 1 }), tag: fc.string() },
    { requiredKeys: ["id", "name"] },
  ),
  Error: fc.record({ error: fc.integer(), message: fc.string({ unit: "binary" }) }),
  Ack: fc.record({ received: fc.constant(true), duplicate: fc.boolean() }, { requiredKeys: ["received"] }),
  WebhookId: fc.stringMatching(/^[\x21-\x7e]{1,256}$/),
  WebhookTimestamp: fc.stringMatching(/^[0-9]{1,15}$/),
  WebhookSignature: fc
    .array(fc.stringMatching(/^v[0-9],[A-Za-z0-9+/=]{1,60}$/), { minLength: 1, maxLength: 5 })
    .map((sigs) => sigs.join(" ")),
  VerificationChallenge: challenge,
  VerificationResponse: response,
  WebhookVerification: fc.record({ type: fc.constant("webhook.verification"), challenge }),
  WebhookVerificationAnswer: fc.record({ challenge, response }),
  PulledEvent: pulledEvent,
  EventPage: fc.record({
    events: fc.array(pulledEvent, { maxLength: 3 }),
    next: fc.option(fc.string(), { nil: null }),
  }),
  EventsExpired: fc.record({ error: fc.constant(410), message: fc.string(), oldestCursor: fc.string() }),
};

/** A valid value, then damaged: a field dropped, retyped or added, or the whole value replaced. */
function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof(
    valid,
    fc
      .tuple(valid, extraFields)
      .map(([value, extra]) =>
        value !== null && typeof value === "object" ? { ...extra, ...value } : value,
      ),
    fc.tuple(valid, fc.nat(), anyValue).map(([value, index, replacement]) => {
      if (value === null || typeof value !== "object") return replacement;
      const keys = Object.keys(value);
      const key = keys[index % Math.max(keys.length, 1)];
      return key === undefined ? value : { ...value, [key]: replacement };
    }),
    fc.tuple(valid, fc.nat()).map(([value, index]) => {
      if (value === null || typeof value !== "object") return value;
      const keys = Object.keys(value);
      const key = keys[index % Math.max(keys.length, 1)];
      const { [key ?? ""]: _, ...rest } = value as Record<string, unknown>;
      return rest;
    }),
    fc.tuple(valid, trickyString).map(([value, s]) => (typeof value === "string" ? value + s : value)),
    anyValue,
  );
}

function verdicts(name: ComponentSchemaName, schema: z.ZodType) {
  const validate = ajv.compile(componentJsonSchema(name));
  return (value: unknown) => ({ ajv: validate(value), zod: schema.safeParse(value).success });
}

describe("ajv on the spec and zod agree on every value", () => {
  it.each(contractSchemas)(
    "%s",
    (name, schema) => {
      const judge = verdicts(name, schema);
      let accepted = 0;
      fc.assert(
        fc.property(mutated(validValues[name]).map(wire), (value) => {
          const { ajv: byAjv, zod: byZod } = judge(value);
          if (byAjv) accepted++;
          expect({ value, zod: byZod }).toStrictEqual({ value, zod: byAjv });
        }),
        { numRuns: RUNS },
      );
      // Both verdicts must actually occur, or agreement proves little.
      expect(accepted).toBeGreaterThan(RUNS / 10);
      expect(accepted).toBeLessThan(RUNS);
      // Thousands of generated values: the 5 s default is too short when the machine is busy.
    },
    30_000,
  );

  it("the generator finds a drifted zod schema (id without the safe-integer bound)", () => {
    const drifted = z.looseObject({ name: z.string().min(1), tag: z.string().optional(), id: z.number() });
    const judge = verdicts("NewPlant", drifted);
    expect(() =>
      fc.assert(
        fc.property(mutated(validValues.NewPlant).map(wire), (value) => {
          const { ajv: byAjv, zod: byZod } = judge(value);
          return byAjv === byZod;
        }),
        { numRuns: RUNS },
      ),
    ).toThrow(/Property failed/);
  });

  it("the generator finds a drifted zod schema (name and tag allowing NUL, U+0000)", () => {
    const drifted = z.looseObject({ name: z.string().min(1), tag: z.string().optional(), id: z.int() });
    const judge = verdicts("NewPlant", drifted);
    expect(() =>
      fc.assert(
        fc.property(mutated(validValues.NewPlant).map(wire), (value) => {
          const { ajv: byAjv, zod: byZod } = judge(value);
          return byAjv === byZod;
        }),
        { numRuns: RUNS },
      ),
    ).toThrow(/Property failed/);
  });

  it("zod and JSON Schema both count string length in code points, so astral text is no drift", () => {
    const astral = "🌼".repeat(4096);
    expect(astral.length).toBe(8192);
    expect(verdicts("WebhookSignature", WebhookSignatureSchema)(astral)).toStrictEqual({
      ajv: true,
      zod: true,
    });
    expect(verdicts("WebhookSignature", WebhookSignatureSchema)(`${astral}a`)).toStrictEqual({
      ajv: false,
      zod: false,
    });
  });
});
