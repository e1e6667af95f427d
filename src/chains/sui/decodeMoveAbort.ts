// A failed Sui transaction's Move abort, as its code and where it happened: from the structured
// field the RPC gives (`MoveAbort.abortCode`) first, else from the two message forms Sui tools
// print, so that a node or proxy that only passes the text on still yields the code.
export type MoveAbort = {
  code: bigint
  /** The module's package and name, when known: only aborts of our own module carry a status. */
  package: string | undefined
  module: string | undefined
  /** Where the code came from. */
  source: 'structured' | 'message'
}

/** The SDK's `ExecutionError` shape (`$kind`, `message`, `MoveAbort`), read defensively. */
export type ExecutionErrorLike = {
  $kind?: string
  message?: string
  MoveAbort?: { abortCode?: string | number | bigint; location?: { package?: string; module?: string } }
}

// MoveAbort(MoveLocation { module: ModuleId { address: <hex>, name: Identifier("m") }, function: 2, instruction: 14, function_name: Some("f") }, 84) in command 1
const debugForm =
  /MoveAbort\(MoveLocation \{ module: ModuleId \{ address: (?:0x)?([0-9a-fA-F]{1,64}), name: Identifier\("([A-Za-z_][A-Za-z0-9_]*)"\) \}.*?\}, (\d+)\)/s
// Move Runtime Abort. Location: <hex>::m::f (function index 2) at offset 14, Abort Code: 84 in command 0
const runtimeForm =
  /Move Runtime Abort\. Location: (?:0x)?([0-9a-fA-F]{1,64})::([A-Za-z_][A-Za-z0-9_]*)::.*?Abort Code: (\d+)/s

export function decodeMoveAbort(error: ExecutionErrorLike | undefined | null): MoveAbort | undefined {
  if (!error) return undefined
  const structured = error.MoveAbort
  if (structured && structured.abortCode !== undefined && /^\d+$/.test(String(structured.abortCode))) {
    return {
      code: BigInt(structured.abortCode),
      package: structured.location?.package ? normalizeAddress(structured.location.package) : undefined,
      module: structured.location?.module,
      source: 'structured',
    }
  }
  const message = error.message ?? ''
  const match = debugForm.exec(message) ?? runtimeForm.exec(message)
  if (!match) return undefined
  const [, address, module, code] = match as unknown as [string, string, string, string]
  return { code: BigInt(code), package: normalizeAddress(address), module, source: 'message' }
}

function normalizeAddress(address: string): string {
  return `0x${address.replace(/^0x/, '').toLowerCase().padStart(64, '0')}`
}
