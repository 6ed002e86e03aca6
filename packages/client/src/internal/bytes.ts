/** Bytes a server sends as text: a resource's base64 `blob` (skills' files, Apps' views). */

/** The bytes of a base64 text (as `atob` reads it), or undefined when it is not base64. */
export const fromBase64 = (text: string): Uint8Array | undefined => {
  try {
    const binary = atob(text)
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return bytes
  } catch {
    return undefined
  }
}
