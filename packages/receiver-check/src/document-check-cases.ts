import { MAX_BODY_BYTES } from "@plant-store/types";
import type { CaseVerdict, CheckCase, CheckContext } from "./check-case.js";
import { checkCases, sendExpecting } from "./check-cases.js";
import {
  type CheckedInvalidPayload,
  type CheckWebhook,
  UNKNOWN_FIELDS,
} from "./document/resolve-check-webhook.js";

/** Every UTF-16 unit of `text` as `\uXXXX` (a character outside the BMP as its surrogate pair). */
const unicodeEscapes = (text: string) =>
  Array.from(
    { length: text.length },
    (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, "0")}`,
  ).join("");

/**
 * The payload as other bytes of the same JSON: keys in reverse order, spaces around colons, tabs and
 * newlines, and the first character of every string (and any non-ASCII one) as a `\u` escape.
 */
export function respaced(value: unknown, indent = "\n"): string {
  if (typeof value === "string")
    return `"${[...value]
      .map((c, i) =>
        i === 0 || c.length > 1 || c > "~" ? unicodeEscapes(c) : JSON.stringify(c).slice(1, -1),
      )
      .join("")}"`;
  const inner = `${indent}\t`;
  if (Array.isArray(value))
    return `[${value.map((item) => `${inner}${respaced(item, inner)}`).join(",")}${indent}]`;
  if (typeof value === "object" && value !== null)
    return `{${Object.entries(value)
      .reverse()
      .map(([key, item]) => `${inner}${JSON.stringify(key)} : ${respaced(item, inner)}`)
      .join(",")}${indent}}`;
  return JSON.stringify(value);
}

const skip = (got: string): Promise<CaseVerdict> => Promise.resolve({ result: "skip", got });

/** One case per derived invalid payload, expecting the document's status for it. */
function invalidPayloadCase(webhook: CheckWebhook, payload: CheckedInvalidPayload): CheckCase {
  const what = {
    "required-missing": "a required field missing",
    "wrong-type": "a field of the wrong type",
    "outside-enum": "a value outside its enum",
  }[payload.kind];
  return {
    id: `payload-${payload.kind}`,
    title: `a signed ${webhook.eventType} ${payload.value === undefined ? `with ${what}` : payload.title}`,
    expected: String(webhook.invalidStatus),
    why: `A payload its schema refuses (${what}) must be refused, so the sender's operator sees which field is wrong; a 2xx drops the event silently.`,
    run: (context) => {
      if (payload.value === undefined) return skip(payload.title);
      if (!payload.refused) return skip("the document's schema accepts it too (as the toolkit reads it)");
      return sendExpecting(context, { body: JSON.stringify(payload.value) }, webhook.invalidStatus);
    },
  };
}

/**
 * The cases for one webhook of a team's document: today's transport cases as they are (the valid
 * delivery's body is the document's first example), the cases that build a body building it from
 * the document instead of a New Plant, the token cases skipped when the webhook asks for no token,
 * each other example sent alone, and the invalid payloads derived from the schema in place of
 * New Plant's one.
 */
export function documentCheckCases(webhook: CheckWebhook): CheckCase[] {
  const [first, ...others] = webhook.valid;
  const compact = JSON.stringify(first?.value);
  const type = webhook.eventType;

  const replaced: Record<string, CheckCase | CheckCase[]> = {
    duplicate: [
      {
        ...(checkCases.find((c) => c.id === "duplicate") as CheckCase),
        why: "The sender retries with the same webhook-id whenever an answer is lost; handling it twice handles the event twice. Judged by the answer's `duplicate` where the receiver says it.",
      },
      {
        id: "every-example",
        title: `each other example of ${type} in the document, alone`,
        expected: "2xx for each",
        why: "Every example of the document is a payload the sender may send; refusing one refuses real events.",
        async run(context) {
          if (others.length === 0) return { result: "skip", got: "the document gives one example" };
          const got: string[] = [];
          let failed = false;
          for (const example of others) {
            const verdict = await sendExpecting(context, { body: JSON.stringify(example.value) }, "2xx");
            failed ||= verdict.result === "fail";
            got.push(`${example.label}: ${verdict.got}`);
          }
          return { result: failed ? "fail" : "pass", got: got.join(", ") };
        },
      },
    ],
    "unknown-fields": {
      id: "unknown-fields",
      title: `a ${type} with fields its schema does not name`,
      expected:
        webhook.unknownFieldsAccepted === false
          ? `${webhook.invalidStatus} (additionalProperties: false)`
          : "2xx",
      why:
        webhook.unknownFieldsAccepted === false
          ? "The document forbids fields it does not name (additionalProperties: false), so a receiver of it refuses them."
          : "The document may add fields in a later version; a receiver that refuses unknown fields breaks on that release (forward compatibility).",
      run: (context) => {
        if (webhook.unknownFieldsAccepted === undefined) return skip("the payload is not an object");
        return sendExpecting(
          context,
          { body: JSON.stringify({ ...(first?.value as object), ...UNKNOWN_FIELDS }) },
          webhook.unknownFieldsAccepted ? "2xx" : webhook.invalidStatus,
        );
      },
    },
    "body-as-sent": {
      ...(checkCases.find((c) => c.id === "body-as-sent") as CheckCase),
      run: (context) => sendExpecting(context, { body: respaced(first?.value) }, "2xx"),
    },
    "signature-over-reserialised": {
      ...(checkCases.find((c) => c.id === "signature-over-reserialised") as CheckCase),
      run: (context) => {
        // Leading whitespace, so that even a payload that is no object re-serialises to other bytes.
        const body = ` ${JSON.stringify(first?.value, null, 1)}`;
        return sendExpecting(context, { body, signedBody: JSON.stringify(JSON.parse(body)) }, 401);
      },
    },
    "body-byte-changed": {
      ...(checkCases.find((c) => c.id === "body-byte-changed") as CheckCase),
      // A space made a tab: the same valid payload, so only the signature can catch it.
      run: (context) => sendExpecting(context, { body: `\t${compact}`, signedBody: ` ${compact}` }, 401),
    },
    "payload-invalid": webhook.invalid.map((payload) => invalidPayloadCase(webhook, payload)),
    "body-too-large": {
      ...(checkCases.find((c) => c.id === "body-too-large") as CheckCase),
      // Trailing spaces: still the valid payload as JSON, so only the size can refuse it.
      run: (context) =>
        sendExpecting(
          context,
          { body: `${compact}${" ".repeat(MAX_BODY_BYTES + 1 - Buffer.byteLength(compact))}` },
          413,
        ),
    },
  };
  // Not New Plant's words where the case itself is the same.
  replaced["signature-wrong"] = {
    ...(checkCases.find((c) => c.id === "signature-wrong") as CheckCase),
    why: "Anyone who finds the URL could send events: the signature is what proves the sender sent them.",
  };
  const tokenCase = (check: CheckCase): CheckCase => ({
    ...check,
    run: (context: CheckContext) =>
      webhook.token.required ? check.run(context) : skip(`the document asks no token for ${type}: none sent`),
  });
  return checkCases.flatMap((check) => {
    if (check.id.startsWith("token-")) return [tokenCase(check)];
    const replacement = replaced[check.id];
    return replacement === undefined ? [check] : replacement;
  });
}
