// Where the embedded devnet listens: on loopback unless HOST says otherwise. The devnet's relayer
// and payer keys are public (printed, and the same on every machine) and its API key is fixed,
// so a devnet reachable from the network lends anyone on it free use of those keys; production
// keeps HOST's documented default (0.0.0.0), since there the gateway sits behind its own edge.
export function devnetListenHost({ env, host }: { env: Record<string, string | undefined>; host: string }): string {
  return env.HOST?.trim() ? host : '127.0.0.1'
}
