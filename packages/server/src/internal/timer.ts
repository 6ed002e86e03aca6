/**
 * Timers of held-open streams (one ends when its token expires): plain Node-style timers, unref'd
 * so that they never keep a process alive, and re-armed past the longest delay a timer takes.
 */

/** Longest delay a timer takes (a longer one would fire at once). */
const maxTimer = 2 ** 31 - 1

/** What cancels no timer. */
export const noTimer = (): void => {}

/** Runs `close` at `at` (epoch milliseconds), however far; returns what cancels it. */
export const timerAt = (at: number, close: () => void): () => void => {
  let timer: ReturnType<typeof setTimeout>
  const arm = () => {
    const delay = at - Date.now()
    timer = setTimeout(delay > maxTimer ? arm : close, Math.max(0, Math.min(delay, maxTimer)))
    const unref = (timer as { unref?: () => void }).unref
    unref?.call(timer)
  }
  arm()
  return () => clearTimeout(timer)
}
