import {
  AckSchema,
  DELIVERY_TIMEOUT_MS,
  ErrorBodySchema,
  generateWebhookKeyPair,
  generateWebhookSecret,
  MAX_BODY_BYTES,
  parseWebhookKey,
  TIMESTAMP_TOLERANCE_SECONDS,
} from "@plant-store/types";
import type { CaseVerdict, CheckCase, CheckContext } from "./check-case.js";
import type { CheckAnswer } from "./check-exchange.js";

/**
 * How far past the contract's window the "outside" timestamps are, and how far inside it the
 * "inside" ones: room for the two clocks to disagree by that much without a wrong verdict.
 */
export const CLOCK_MARGIN_SECONDS = 30;

const SNIPPET = 80;

/** An answer in a few characters: the status and the start of the body, or why there was none. */
export function describeAnswer(answer: CheckAnswer, withBody: boolean): string {
  if (answer.kind === "none")
    return answer.error === "ETIMEDOUT"
      ? `no answer within ${answer.durationMs} ms`
      : `no answer (${answer.error})`;
  const body = answer.body.replace(/\s+/g, " ").trim();
  if (!withBody || body === "") return String(answer.status);
  return `${answer.status} ${body.length > SNIPPET ? `${body.slice(0, SNIPPET)}…` : body}`;
}

const is2xx = (answer: CheckAnswer) =>
  answer.kind === "answer" && answer.status >= 200 && answer.status < 300;

/** Passes when the one answer has the status (`"2xx"` for any success). */
export function expectStatus(answer: CheckAnswer, status: number | "2xx"): CaseVerdict {
  const passed = status === "2xx" ? is2xx(answer) : answer.kind === "answer" && answer.status === status;
  return { result: passed ? "pass" : "fail", got: describeAnswer(answer, !passed) };
}

/** Sends one delivery and expects `status`. */
export async function sendExpecting(
  context: CheckContext,
  parts: Parameters<CheckContext["delivery"]>[0],
  status: number | "2xx",
): Promise<CaseVerdict> {
  return expectStatus(await context.send(context.delivery(parts)), status);
}

/** Another key of the same kind as `key`: a signature the receiver cannot know. */
function unknownKeyLike(key: string): string {
  return parseWebhookKey(key).type === "signing"
    ? generateWebhookKeyPair().signingKey
    : generateWebhookSecret();
}

const isSigningKey = (key: string) => parseWebhookKey(key).type === "signing";

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The `duplicate` flag of an Ack answer, when the receiver says one. */
function duplicateFlag(answer: CheckAnswer | undefined): boolean | undefined {
  if (answer === undefined || answer.kind !== "answer") return undefined;
  const ack = AckSchema.safeParse(parseJson(answer.body));
  return ack.success ? ack.data.duplicate : undefined;
}

const UNAUTHORIZED = "401";

/**
 * Every case, in the order they run and are printed. Each sends at most one request, except
 * `every-key` (one per key given beyond the first two kinds), and only to the URL under test.
 */
export const checkCases: readonly CheckCase[] = [
  {
    id: "valid",
    title: "a delivery signed as the Plant Store signs it",
    expected: "2xx",
    why: "The baseline: if a correctly signed delivery is refused, every real one is retried and finally given up.",
    async run(context) {
      const delivery = context.delivery();
      const answer = await context.send(delivery);
      context.accepted = { delivery, answer };
      return expectStatus(answer, "2xx");
    },
  },
  {
    id: "duplicate",
    title: "the same webhook-id and body again, freshly signed (a retry)",
    expected: "2xx, not handled as new",
    why: "The store retries with the same webhook-id whenever an answer is lost; handling it twice adds the plant twice. Judged by the answer's `duplicate` where the receiver says it.",
    async run(context) {
      const first = context.accepted;
      if (first === undefined) return { result: "skip", got: "the case valid did not run" };
      const answer = await context.send(
        context.delivery({ webhookId: first.delivery.webhookId, body: first.delivery.body }),
      );
      const verdict = expectStatus(answer, "2xx");
      if (verdict.result === "fail") return verdict;
      const before = duplicateFlag(first.answer);
      const now = duplicateFlag(answer);
      // A receiver that never says `duplicate` cannot be judged from the outside beyond its 2xx.
      if (!is2xx(first.answer) || (before === undefined && now === undefined))
        return { result: "pass", got: `${describeAnswer(answer, false)} (cannot tell: no duplicate flag)` };
      if (now === true) return { result: "pass", got: `${describeAnswer(answer, false)} duplicate: true` };
      return { result: "fail", got: describeAnswer(answer, true) };
    },
  },
  {
    id: "unknown-fields",
    title: "a New Plant with fields the contract does not name",
    expected: "2xx",
    why: "The contract may add fields in a later version; a receiver that refuses unknown fields breaks on that release (forward compatibility).",
    run: (context) =>
      sendExpecting(
        context,
        { body: context.plantBody({ colour: "variegated", care: { water: "weekly", light: "bright" } }) },
        "2xx",
      ),
  },
  {
    id: "body-as-sent",
    title: "a body with other spacing, key order and escapes, signed over its exact bytes",
    expected: "2xx",
    why: "The signature covers the exact bytes sent. A receiver that verifies a re-serialised body (a JSON body parser ran first) refuses any other spacing: the most reported webhook bug (stripe-node #341, svix-webhooks #1463).",
    run: (context) =>
      sendExpecting(
        context,
        {
          body: `{\n  "name" : "Monstera deliciosa \\u2013 bytes as sent",\n\t"tag": "caf\\u00e9",  "id": ${context.plantId()}\n}\n`,
        },
        "2xx",
      ),
  },
  {
    id: "rotation",
    title: "two signatures, only the second one valid (secret rotation)",
    expected: "2xx",
    why: "While a secret is rotated the store signs with every active one; a receiver must accept the delivery when any signature matches, not only the first.",
    run: (context) => {
      const [first] = context.keys as [string];
      return sendExpecting(context, { keys: [unknownKeyLike(first), first] }, "2xx");
    },
  },
  {
    id: "v1a",
    title: "signed with the whsk_ key alone (v1a, ed25519)",
    expected: "2xx",
    why: "A receiver holding the whpk_ public key must accept v1a signatures: the store sends only those once its endpoint has a whsk_ key alone.",
    async run(context) {
      const key = context.keys.find(isSigningKey);
      if (key === undefined) return { result: "skip", got: "no whsk_ key given" };
      return sendExpecting(context, { keys: [key] }, "2xx");
    },
  },
  {
    id: "every-key",
    title: "signed with each other key given, alone",
    expected: "2xx for each",
    why: "After a rotation the store may sign with the new secret only; each key the receiver was given must be accepted by itself.",
    async run(context) {
      const v1a = context.keys.find(isSigningKey);
      const others = context.keys.slice(1).filter((key) => key !== v1a);
      if (others.length === 0) return { result: "skip", got: "no other key given" };
      const got: string[] = [];
      let failed = false;
      for (const key of others) {
        const verdict = await sendExpecting(context, { keys: [key] }, "2xx");
        failed ||= verdict.result === "fail";
        got.push(verdict.got);
      }
      return { result: failed ? "fail" : "pass", got: got.join(", ") };
    },
  },
  {
    id: "timestamp-inside-past",
    title: `webhook-timestamp ${TIMESTAMP_TOLERANCE_SECONDS - CLOCK_MARGIN_SECONDS} s ago`,
    expected: "2xx",
    why: `The contract allows ${TIMESTAMP_TOLERANCE_SECONDS} s either way for clocks that drift; a narrower window refuses deliveries the store considers valid.`,
    run: (context) =>
      sendExpecting(
        context,
        { timestamp: context.nowSeconds() - (TIMESTAMP_TOLERANCE_SECONDS - CLOCK_MARGIN_SECONDS) },
        "2xx",
      ),
  },
  {
    id: "timestamp-inside-future",
    title: `webhook-timestamp ${TIMESTAMP_TOLERANCE_SECONDS - CLOCK_MARGIN_SECONDS} s ahead`,
    expected: "2xx",
    why: `The window is ${TIMESTAMP_TOLERANCE_SECONDS} s in both directions: the store's clock may be ahead of the receiver's.`,
    run: (context) =>
      sendExpecting(
        context,
        { timestamp: context.nowSeconds() + (TIMESTAMP_TOLERANCE_SECONDS - CLOCK_MARGIN_SECONDS) },
        "2xx",
      ),
  },
  {
    id: "timestamp-stale",
    title: `webhook-timestamp ${TIMESTAMP_TOLERANCE_SECONDS + CLOCK_MARGIN_SECONDS} s ago, correctly signed`,
    expected: UNAUTHORIZED,
    why: "Without a window, a captured delivery can be replayed for ever: the timestamp is signed, so refusing old ones is what stops replays.",
    run: (context) =>
      sendExpecting(
        context,
        { timestamp: context.nowSeconds() - (TIMESTAMP_TOLERANCE_SECONDS + CLOCK_MARGIN_SECONDS) },
        401,
      ),
  },
  {
    id: "timestamp-future",
    title: `webhook-timestamp ${TIMESTAMP_TOLERANCE_SECONDS + CLOCK_MARGIN_SECONDS} s ahead, correctly signed`,
    expected: UNAUTHORIZED,
    why: "A timestamp far ahead keeps a captured delivery replayable long after it was sent; the window must hold in both directions.",
    run: (context) =>
      sendExpecting(
        context,
        { timestamp: context.nowSeconds() + (TIMESTAMP_TOLERANCE_SECONDS + CLOCK_MARGIN_SECONDS) },
        401,
      ),
  },
  {
    id: "signature-wrong",
    title: "signed with a key the receiver does not hold",
    expected: UNAUTHORIZED,
    why: "Anyone who finds the URL could add plants: the signature is what proves the store sent it.",
    run: (context) => {
      const [first] = context.keys as [string];
      return sendExpecting(context, { keys: [unknownKeyLike(first)] }, 401);
    },
  },
  {
    id: "signature-truncated",
    title: "the valid signature with its last 8 characters cut off",
    expected: UNAUTHORIZED,
    why: "A comparison that stops at the shorter value (or decodes leniently) accepts a prefix, which is much easier to guess.",
    run: (context) => {
      const signed = context.delivery();
      const signature = signed.request.headers["webhook-signature"] as string;
      return sendExpecting(
        context,
        { webhookId: signed.webhookId, body: signed.body, signature: signature.slice(0, -8) },
        401,
      );
    },
  },
  {
    id: "signature-missing",
    title: "no webhook-signature header",
    expected: UNAUTHORIZED,
    why: "A receiver that verifies only when a signature is present verifies nothing: a forger leaves it out.",
    run: (context) => sendExpecting(context, { signature: null }, 401),
  },
  {
    id: "signature-over-reserialised",
    title: "signed over the re-serialised body, the original bytes sent",
    expected: UNAUTHORIZED,
    why: "A receiver that verifies JSON.stringify(JSON.parse(body)) accepts bytes the store never signed; verify the raw bytes, then parse.",
    run: (context) => {
      const body = `{ "id": ${context.plantId()}, "name": "Monstera deliciosa", "tag": "re-serialised" }`;
      return sendExpecting(context, { body, signedBody: JSON.stringify(JSON.parse(body)) }, 401);
    },
  },
  {
    id: "body-byte-changed",
    title: "one byte of the body changed after signing",
    expected: UNAUTHORIZED,
    why: "The signature must cover every byte of the body, or a body can be altered on the way.",
    run: (context) => {
      const signed = context.plantBody();
      // The last letter of the name: still valid JSON and a valid New Plant, so only the signature can catch it.
      const at = signed.indexOf('deliciosa"') + "deliciosa".length - 1;
      const body = `${signed.slice(0, at)}o${signed.slice(at + 1)}`;
      return sendExpecting(context, { body, signedBody: signed }, 401);
    },
  },
  {
    id: "token-missing",
    title: "no Authorization header, correctly signed",
    expected: UNAUTHORIZED,
    why: "The contract asks for the bearer token and the signature: both must pass.",
    run: (context) => sendExpecting(context, { authorization: null }, 401),
  },
  {
    id: "token-wrong",
    title: "Authorization: Bearer with another token",
    expected: UNAUTHORIZED,
    why: "A token that is present but wrong must be refused, not only a missing one.",
    run: (context) => sendExpecting(context, { authorization: `Bearer wrong-${context.token}` }, 401),
  },
  {
    id: "token-other-scheme",
    title: "the right token under another scheme (Authorization: Token …)",
    expected: UNAUTHORIZED,
    why: "A receiver that only looks for the token's text (endsWith, includes) accepts any scheme; RFC 6750 bearer means exactly `Bearer <token>`.",
    run: (context) => sendExpecting(context, { authorization: `Token ${context.token}` }, 401),
  },
  {
    id: "payload-invalid",
    title: 'a signed body that is JSON but not a New Plant ({"id":"seven","name":""})',
    expected: "400 with {error: 400, message}",
    why: "An invalid payload must be refused with the contract's Error body, so the operator sees which field is wrong; a 2xx drops the plant silently.",
    async run(context) {
      const answer = await context.send(context.delivery({ body: '{"id":"seven","name":""}' }));
      if (answer.kind !== "answer" || answer.status !== 400) return expectStatus(answer, 400);
      const error = ErrorBodySchema.safeParse(parseJson(answer.body));
      if (error.success && error.data.error === 400) return { result: "pass", got: "400" };
      return { result: "fail", got: `${describeAnswer(answer, true)} (not an Error body)` };
    },
  },
  {
    id: "body-too-large",
    title: `a correctly signed body of ${MAX_BODY_BYTES + 1} bytes (1 MiB + 1)`,
    expected: "413",
    why: "The contract caps bodies at 1 MiB; a receiver that reads any size can be made to hold gigabytes.",
    run: (context) => {
      const start = context.plantBody({ padding: "" });
      // The padding fills the body to exactly one byte over the limit, as valid JSON.
      const body = start.replace(
        '"padding":""',
        `"padding":"${"x".repeat(MAX_BODY_BYTES + 1 - start.length)}"`,
      );
      return sendExpecting(context, { body }, 413);
    },
  },
  {
    id: "content-type-wrong",
    title: "a correctly signed delivery with Content-Type: text/plain",
    expected: "415",
    why: "The contract sends application/json only; guessing the format of anything else is how parsers get confused.",
    run: (context) => sendExpecting(context, { contentType: "text/plain" }, 415),
  },
  {
    id: "answer-time",
    title: "the slowest answer of this run",
    expected: "each answer in under the store's limit",
    why: `The store waits at most ${DELIVERY_TIMEOUT_MS / 1000} s per attempt; a slower answer counts as failed and the delivery comes again. Answer first, then do slow work.`,
    async run(context) {
      const late = context.answers.filter(
        ({ answer }) => answer.kind === "none" && answer.error === "ETIMEDOUT",
      );
      let slowest: { caseId: string; answer: CheckAnswer } | undefined;
      for (const entry of context.answers) {
        if (entry.answer.kind !== "answer") continue;
        if (slowest === undefined || entry.answer.durationMs > slowest.answer.durationMs) slowest = entry;
      }
      if (late.length > 0)
        return {
          result: "fail",
          got: `${late.length} without an answer within ${context.timeoutMs} ms (${late.map((l) => l.caseId).join(", ")})`,
        };
      // Refused connections and resets fail their own cases; they say nothing about the answer time.
      if (slowest === undefined) return { result: "skip", got: "no answer came" };
      return {
        result: "pass",
        got: `${slowest.answer.durationMs} ms (${slowest.caseId}), limit ${context.timeoutMs} ms`,
      };
    },
  },
];
