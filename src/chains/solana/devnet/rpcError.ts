// A JSON-RPC error the LiteSVM front answers with (code, message, and the node's `data`).
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}
