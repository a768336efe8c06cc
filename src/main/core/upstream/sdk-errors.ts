// What an error of the MCP SDK or a transport says: a timeout, a closed connection, and its text for people.
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client'

/** Is this error the SDK's "timed out" (v2 SdkError; ours from withTimeout)? */
export function isTimeout(err: unknown): boolean {
  return (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) || /^timed out after/.test(errorText(err))
}

export function isConnectionClosed(err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause
    const causeText = cause instanceof Error && cause.message && !err.message.includes(cause.message) ? `: ${cause.message}` : ''
    return `${err.message}${causeText}`
  }
  return String(err)
}
