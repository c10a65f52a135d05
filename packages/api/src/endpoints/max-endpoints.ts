/**
 * Every endpoint is read, decrypted and shown by `GET /endpoints`, which the page polls every second:
 * 3,000 endpoints made 6.2 MB a poll. A thousand is more than a store fans one plant out to in
 * practice (the fan-out benchmark's largest), and keeps a poll near 2 MB.
 */
export const MAX_ENDPOINTS = 1000;
