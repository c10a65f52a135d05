/** One request the check sends: always a POST to the URL under test. */
export interface CheckRequest {
  headers: Readonly<Record<string, string>>;
  /** The exact bytes sent. */
  body: Uint8Array;
}

/** What came back for one request: an answer, or why none came. */
export type CheckAnswer =
  | {
      kind: "answer";
      status: number;
      headers: Readonly<Record<string, string>>;
      /** The first bytes of the answer's body (see MAX_ANSWER_BYTES), as UTF-8. */
      body: string;
      durationMs: number;
    }
  | {
      kind: "none";
      /** A short code: `ETIMEDOUT` when nothing came within the time limit, else the socket's error code. */
      error: string;
      durationMs: number;
    };

/** Sends one request to the URL under test. Never throws: a failure is a `none` answer. */
export type CheckTransport = (request: CheckRequest, timeoutMs: number) => Promise<CheckAnswer>;

/** How much of an answer's body is kept: enough for any error body, never a whole page. */
export const MAX_ANSWER_BYTES = 16 * 1024;
