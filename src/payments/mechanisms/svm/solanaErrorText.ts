// A Solana transaction's error as text: the node's error object (its instruction index and custom
// codes may come back as bigints, which JSON.stringify refuses), for a failed settlement's reason.

export const solanaErrorText = (err: unknown): string =>
  JSON.stringify(err, (_, v) => (typeof v === 'bigint' ? v.toString() : v))
