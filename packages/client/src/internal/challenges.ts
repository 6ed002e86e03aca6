/**
 * `WWW-Authenticate`, read (RFC 9110 §11.6.1): a list of challenges, each an auth scheme with
 * either a token68 or auth params (`name=token` or `name="quoted string"`), commas between them
 * and between params. Scheme and param names are case-insensitive: they come lower case.
 * Malformed text ends the list where it breaks; what was read before stays.
 */
import type { Challenge } from "../ClientError.js"

const tchar = /[!#$%&'*+.^_`|~0-9A-Za-z-]/
const token68char = /[A-Za-z0-9\-._~+/]/

export const parse = (header: string): ReadonlyArray<Challenge> => {
  const challenges: Array<Challenge> = []
  let i = 0
  const at = () => header[i]
  const spaces = () => {
    while (at() === " " || at() === "\t") i++
  }
  const separators = () => {
    while (at() === " " || at() === "\t" || at() === ",") i++
  }
  const token = (): string => {
    const start = i
    while (i < header.length && tchar.test(header[i]!)) i++
    return header.slice(start, i)
  }
  const quoted = (): string | undefined => {
    if (at() !== "\"") return undefined
    i++
    let value = ""
    while (i < header.length && at() !== "\"") {
      if (at() === "\\" && i + 1 < header.length) i++
      value += header[i]
      i++
    }
    if (at() !== "\"") return undefined
    i++
    return value
  }
  /** From `i`: a token followed by `=`, which is a param's start (not the next challenge's scheme). */
  const paramAhead = (): boolean => {
    let j = i
    while (j < header.length && tchar.test(header[j]!)) j++
    if (j === i) return false
    while (header[j] === " " || header[j] === "\t") j++
    if (header[j] !== "=") return false
    j++
    while (header[j] === " " || header[j] === "\t") j++
    return j < header.length && (header[j] === "\"" || tchar.test(header[j]!))
  }

  separators()
  while (i < header.length) {
    const scheme = token()
    if (scheme.length === 0) break
    const params: Record<string, string> = {}
    let token68: string | undefined
    spaces()
    // A token68: its characters, then only `=` padding, then the end or a comma.
    const start = i
    let j = i
    while (j < header.length && token68char.test(header[j]!)) j++
    let k = j
    while (header[k] === "=") k++
    const afterPadding = header.slice(k).trimStart()
    if (j > start && !paramAhead() && (afterPadding === "" || afterPadding.startsWith(","))) {
      token68 = header.slice(start, k)
      i = k
    } else {
      while (paramAhead()) {
        const name = token().toLowerCase()
        spaces()
        i++ // "="
        spaces()
        const value = at() === "\"" ? quoted() : token()
        if (value === undefined) return [...challenges, { scheme: scheme.toLowerCase(), params }]
        params[name] = value
        spaces()
        if (at() !== ",") break
        separators()
      }
    }
    challenges.push({ scheme: scheme.toLowerCase(), params, ...(token68 !== undefined ? { token68 } : {}) })
    separators()
  }
  return challenges
}
