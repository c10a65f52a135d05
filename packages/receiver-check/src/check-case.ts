import type { CheckAnswer, CheckRequest } from "./check-exchange.js";

/** One delivery as a case builds it; every part left out is what the Plant Store would send. */
export interface DeliveryParts {
  webhookId?: string;
  /** Unix seconds; default now. */
  timestamp?: number;
  /** The bytes sent; default a fresh valid New Plant. */
  body?: string;
  /** The bytes the signature covers, when not the ones sent. */
  signedBody?: string;
  /** Keys to sign with, in order (one signature each); default the first key given. */
  keys?: readonly string[];
  /** The `webhook-signature` header as is (`null`: left out), instead of signing. */
  signature?: string | null;
  /** The `Authorization` header as is (`null`: left out); default `Bearer <token>`. */
  authorization?: string | null;
  /** Default `application/json`. */
  contentType?: string;
}

/** A built delivery: the request and what identifies it. */
export interface BuiltDelivery {
  request: CheckRequest;
  webhookId: string;
  body: string;
}

/** What a case can use; sending goes only to the URL under test. */
export interface CheckContext {
  token: string;
  /** The keys given (`whsec_` and `whsk_`), in order. */
  keys: readonly string[];
  /** The longest the store waits for an answer (and so the check). */
  timeoutMs: number;
  /** A valid New Plant body (compact JSON) with a fresh plant id; `extra` fields are added after the known ones. */
  plantBody(extra?: Record<string, unknown>): string;
  /** A fresh plant id, unique in this run. */
  plantId(): number;
  nowSeconds(): number;
  delivery(parts?: DeliveryParts): BuiltDelivery;
  send(delivery: BuiltDelivery): Promise<CheckAnswer>;
  /** What the case `valid` sent and got, for the cases that build on it. */
  accepted?: { delivery: BuiltDelivery; answer: CheckAnswer };
  /** Every answer so far, with the case that asked for it. */
  answers: ReadonlyArray<{ caseId: string; answer: CheckAnswer }>;
}

export type CaseResult = "pass" | "fail" | "skip";

export interface CaseVerdict {
  result: CaseResult;
  /** What came back, shortly: `401`, `200 {"received":true,...}`, `no answer (ECONNRESET)`, or why skipped. */
  got: string;
}

export interface CheckCase {
  id: string;
  /** What is sent, in a few words. */
  title: string;
  /** What a conforming receiver answers. */
  expected: string;
  /** Why a receiver that fails the case is broken, in one or two sentences. */
  why: string;
  run(context: CheckContext): Promise<CaseVerdict>;
}
