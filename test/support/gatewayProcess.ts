// A gateway in its own process on a devnet chain, as `npm start` runs it: the environment that
// points it at the devnet's contracts, and a start that waits until it listens.
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import type { Devnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { type GatewayProcess, runGateway, waitFor } from './runGateway.ts'

/** The devnet chain's contracts, endpoint and relayer, as environment variables. */
export function chainEnv(devnet: Devnet): Record<string, string> {
  const on = (address: string) => JSON.stringify({ [devnet.anvil.chainId]: address })
  return {
    EXECUTOR_ADDRESSES: on(devnet.contracts.executor),
    VALIDATOR_ADDRESSES: on(devnet.contracts.validator),
    REGISTRY_ADDRESSES: on(devnet.contracts.registry),
    RPC_URLS: on(devnet.anvil.rpcUrl),
    RELAYER_PRIVATE_KEY: devnetAccounts.relayer,
    HOST: '127.0.0.1',
    PORT: '0',
    RECEIPT_POLL_MS: '100',
  }
}

export async function startGatewayProcess(
  env: Record<string, string>,
): Promise<{ gw: GatewayProcess; baseUrl: string }> {
  const gw = runGateway({ env })
  const listening = /listening on 127\.0\.0\.1:(\d+)/
  // A gateway that does not start is killed here: the caller never gets it to stop, and a process
  // left running keeps the test file from ever exiting.
  try {
    await waitFor(() => listening.test(gw.stdout()) || gw.child.exitCode !== null, 60_000, 'the gateway to listen')
  } catch (err) {
    gw.child.kill('SIGKILL')
    throw err
  }
  const port = listening.exec(gw.stdout())?.[1]
  if (!port) {
    gw.child.kill('SIGKILL')
    throw new Error(`the gateway did not start: ${gw.stderr()} ${gw.stdout()}`)
  }
  return { gw, baseUrl: `http://127.0.0.1:${port}` }
}

/** The relayer addresses an instance holds now, as its /chains page shows them. */
export async function relayersHeld(baseUrl: string, chain = '31337'): Promise<string[]> {
  const res = await fetch(`${baseUrl}/chains/${chain}`)
  const body = (await res.json()) as { relayers: Array<{ address: string; held: boolean }> }
  return body.relayers.filter((r) => r.held).map((r) => r.address.toLowerCase())
}
