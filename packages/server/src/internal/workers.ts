/**
 * Cloudflare Workers (workerd): a timer, and whatever waits on it, belongs to the request that set
 * it. It is cancelled when that request's response ends, and a request whose response is still
 * open with nothing of its own pending (no timer, no I/O) is cancelled by the runtime as hung
 * ("your Worker's code had hung and would never generate a response"). A fiber that sleeps for
 * the whole server (a coalescing window, a sweep) sleeps on the timer of whichever request woke
 * it last, and never wakes once that request is done. What is shared between requests without a
 * timer (a queue offered to by one request and taken from by a fiber of another) works: a
 * promise resolved from another request continues in the request that made it, while it lives
 * (workerd's `handle_cross_request_promise_resolution`, on since 2024-10-14). So does writing to a
 * response body that is a JavaScript `ReadableStream` (the platform's, of an Effect `Stream`); a
 * native stream (`IdentityTransformStream`) written from another request throws "Cannot perform
 * I/O on behalf of a different request".
 */

/** Is this a Cloudflare Worker? (Cloudflare's documented `navigator.userAgent` of a Worker.) */
export const onWorkers = (): boolean =>
  (globalThis as { readonly navigator?: { readonly userAgent?: unknown } }).navigator?.userAgent ===
    "Cloudflare-Workers"
