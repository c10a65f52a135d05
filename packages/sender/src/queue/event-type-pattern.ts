/**
 * What an event type may be: visible ASCII a header can carry and an operationId can be (letters,
 * digits, `_ . : / -`), at most 200 characters. A subscription may end with one `*` (a prefix).
 */
export const EVENT_TYPE_PATTERN = /^[A-Za-z0-9_.:/-]{1,200}$/;
