// Solana JSON-RPC over a LiteSVM: the methods the gateway's @solana/kit client and the devnet
// seeding use, with the wire format of a real node (numbers that may exceed 2^53 written as
// plain JSON integers, base64 account data, `returnData` as `{ programId, data: [b64, "base64"] }`).
// Plus a few `litesvm_*` methods a real node does not have, for the devnet and tests: deploy a
// program, set an account, move the clock, expire the blockhash, set the recent prioritization fees
// (LiteSVM has no fee market). Not a validator: no websocket,
// no forks, no blocks, one slot per transaction, blockhashes expire only when told to.
import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { type Address, getBase58Decoder, getBase58Encoder, getTransactionDecoder, lamports } from '@solana/kit'
import { Clock, FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from 'litesvm'
import { createClusterSvm } from './createClusterSvm.ts'
import { createFeeMarket } from './createFeeMarket.ts'
import { createLandedTransactions } from './createLandedTransactions.ts'
import { createSignatureHistory } from './createSignatureHistory.ts'
import { getProgramAccounts } from './getProgramAccounts.ts'
import { RpcError } from './rpcError.ts'
import { type AccountEncodingConfig, toRpcAccount } from './toRpcAccount.ts'
import { toRpcTransactionError } from './toRpcTransactionError.ts'

export type LiteSvmRpc = { server: Server; genesisHash: string; svm: LiteSVM }

const base58 = getBase58Decoder()
const fromBase58 = getBase58Encoder()
const transactionDecoder = getTransactionDecoder()

/** A JSON text where bigints are written as integers, as Solana nodes write u64s. */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `@@bigint:${v}@@` : v)).replace(
    /"@@bigint:(-?\d+)@@"/g,
    '$1',
  )
}

export function createLiteSvmRpc({
  genesisSeed = 'intent-gateway solana devnet',
  allowSbpfV0Deployment = false,
}: {
  genesisSeed?: string
  allowSbpfV0Deployment?: boolean
} = {}): LiteSvmRpc {
  // Every feature LiteSVM knows, SIMD-0500 among them: deployments follow the loader's newest rules.
  const svm = createClusterSvm({ allowSbpfV0Deployment })
  const genesisHash = base58.decode(createHash('sha256').update(genesisSeed).digest())
  /** Seconds added to the wall clock: the devnet's time follows real time, shifted by tests. */
  let clockOffset = 0n
  let slot = 1n
  const signatures = new Map<string, bigint>()
  const history = createSignatureHistory()
  const ledger = createLandedTransactions()
  const feeMarket = createFeeMarket()
  const now = () => BigInt(Math.floor(Date.now() / 1000)) + clockOffset
  /**
   * A blockhash lives 150 blocks, as on a real cluster, and here also at most 90 seconds (a
   * cluster makes 150 blocks in about a minute; this chain makes one per transaction): then
   * LiteSVM is given a new one. What lands after a payment's time bound is thus as on a cluster.
   */
  const blockhashLifetime = 150n
  const blockhashMaxAgeMs = 90_000
  let blockhashValidUntil = slot + blockhashLifetime
  let blockhashSince = Date.now()
  function expireIfDue() {
    if (slot <= blockhashValidUntil && Date.now() - blockhashSince <= blockhashMaxAgeMs) return
    svm.expireBlockhash()
    blockhashValidUntil = slot + blockhashLifetime
    blockhashSince = Date.now()
  }

  function syncClock() {
    const c = svm.getClock()
    svm.setClock(new Clock(slot, c.epochStartTimestamp, c.epoch, c.leaderScheduleEpoch, now()))
  }
  const context = () => ({ slot, apiVersion: '2.2.0' })
  const decodeTransaction = (wire: unknown, encoding: unknown) => {
    if (typeof wire !== 'string') throw new RpcError(-32602, 'invalid transaction: expected an encoded string')
    const bytes = encoding === 'base64' ? Buffer.from(wire, 'base64') : fromBase58.encode(wire)
    try {
      return transactionDecoder.decode(bytes)
    } catch (err) {
      throw new RpcError(-32602, `invalid transaction: ${(err as Error).message}`)
    }
  }
  const returnDataOf = (meta: TransactionMetadata) => {
    const r = meta.returnData()
    const data = r.data()
    if (data.length === 0) return null
    return { programId: base58.decode(r.programId()), data: [Buffer.from(data).toString('base64'), 'base64'] }
  }

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': 'litesvm-1.5.0', 'feature-set': 0 }),
    getSlot: () => slot,
    getBlockHeight: () => slot,
    getGenesisHash: () => genesisHash,
    /** The devnet's time (every slot is now: LiteSVM keeps no history of blocks). */
    getBlockTime: () => now(),
    getBalance: ([address]) => ({ context: context(), value: svm.getBalance(address as Address) ?? 0n }),
    getLatestBlockhash: () => {
      expireIfDue()
      return {
        context: context(),
        value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: blockhashValidUntil },
      }
    },
    // A transaction may still land with this blockhash: it is LiteSVM's current one (an expired one is refused).
    isBlockhashValid: ([blockhash]) => {
      expireIfDue()
      return { context: context(), value: blockhash === svm.latestBlockhash() }
    },
    getMinimumBalanceForRentExemption: ([size]) => svm.minimumBalanceForRentExemption(BigInt(size as number)),
    getAccountInfo: ([address, config]) => {
      const account = svm.getAccount(address as Address)
      return {
        context: context(),
        value: account.exists ? toRpcAccount(account, config as AccountEncodingConfig | undefined) : null,
      }
    },
    getProgramAccounts: (params) => getProgramAccounts(svm, params, context),
    getSignaturesForAddress: (params) => history.forAddress(params),
    getRecentPrioritizationFees: ([addresses]) => {
      if (addresses !== undefined && (!Array.isArray(addresses) || addresses.length > 128))
        throw new RpcError(-32602, 'Invalid params: at most 128 addresses')
      return feeMarket.recent((addresses ?? []) as string[], slot)
    },
    requestAirdrop: ([address, amount]) => {
      syncClock()
      const result = svm.airdrop(address as Address, lamports(BigInt(amount as number)))
      if (!result || result instanceof FailedTransactionMetadata) throw new RpcError(-32603, 'airdrop failed')
      const signature = base58.decode(result.signature())
      signatures.set(signature, slot)
      history.record(signature, slot, now(), [address as string])
      slot += 1n
      return signature
    },
    simulateTransaction: ([wire, config]) => {
      const options = (config ?? {}) as { encoding?: string; sigVerify?: boolean; replaceRecentBlockhash?: boolean }
      if (options.sigVerify && options.replaceRecentBlockhash)
        throw new RpcError(-32602, 'sigVerify may not be used with replaceRecentBlockhash')
      const tx = decodeTransaction(wire, options.encoding ?? 'base58')
      syncClock()
      svm.withSigverify(options.sigVerify === true)
      svm.withBlockhashCheck(options.replaceRecentBlockhash !== true)
      try {
        const result = svm.simulateTransaction(tx)
        const failed = result instanceof FailedTransactionMetadata
        const meta = failed ? result.meta() : result.meta()
        return {
          context: context(),
          value: {
            err: failed ? toRpcTransactionError(result.err()) : null,
            logs: meta.logs(),
            accounts: null,
            unitsConsumed: meta.computeUnitsConsumed(),
            returnData: returnDataOf(meta),
            innerInstructions: null,
            replacementBlockhash: options.replaceRecentBlockhash
              ? { blockhash: svm.latestBlockhash(), lastValidBlockHeight: slot + 150n }
              : null,
          },
        }
      } finally {
        svm.withSigverify(true)
        svm.withBlockhashCheck(true)
      }
    },
    sendTransaction: ([wire, config]) => {
      const tx = decodeTransaction(wire, (config as { encoding?: string } | undefined)?.encoding ?? 'base58')
      syncClock()
      expireIfDue()
      // Congested (a test said so): accepted, never landed; its status stays unknown.
      if (!feeMarket.lands(tx)) return base58.decode(Object.values(tx.signatures)[0]!)
      const accounts = ledger.accountsOf(tx)
      const lamportsOf = () => accounts.map((a) => svm.getBalance(a as Address) ?? 0n)
      const preBalances = lamportsOf()
      const result = svm.sendTransaction(tx)
      const at = { slot, blockTime: now() }
      const landed = (err: unknown, meta: TransactionMetadata) =>
        ledger.record(base58.decode(Object.values(tx.signatures)[0]!), tx, at, {
          err,
          preBalances,
          postBalances: lamportsOf(),
          computeUnitsConsumed: meta.computeUnitsConsumed(),
        })
      if (result instanceof FailedTransactionMetadata) {
        const meta = result.meta()
        const err = toRpcTransactionError(result.err())
        // LiteSVM took its fee (it failed in execution): in the ledger with its error, as a cluster keeps it.
        if (lamportsOf()[0]! < preBalances[0]!) landed(err, meta)
        throw new RpcError(
          -32002,
          `Transaction simulation failed: ${typeof err === 'string' ? err : JSON.stringify(err)}`,
          {
            err,
            logs: meta.logs(),
            accounts: null,
            unitsConsumed: meta.computeUnitsConsumed(),
            returnData: returnDataOf(meta),
            innerInstructions: null,
          },
        )
      }
      const signature = base58.decode(result.signature())
      landed(null, result)
      signatures.set(signature, slot)
      history.record(signature, slot, now(), history.accountsOf(tx))
      slot += 1n
      return signature
    },
    getTransaction: (params) => ledger.getTransaction(params),
    getSignatureStatuses: ([list]) => ({
      context: context(),
      value: (list as string[]).map((signature) => {
        const at = signatures.get(signature)
        if (at === undefined) return null
        return { slot: at, confirmations: null, err: null, confirmationStatus: 'finalized', status: { Ok: null } }
      }),
    }),

    // Not Solana: devnet and test controls.
    litesvm_addProgram: ([programId, base64]) => {
      svm.addProgram(programId as Address, Buffer.from(base64 as string, 'base64'))
      return null
    },
    litesvm_setAccount: ([address, account]) => {
      const a = account as { lamports: number | string; data: string; owner: string; executable?: boolean }
      const data = Buffer.from(a.data, 'base64')
      svm.setAccount({
        address: address as Address,
        lamports: lamports(BigInt(a.lamports)),
        data,
        programAddress: a.owner as Address,
        executable: a.executable ?? false,
        space: BigInt(data.length),
      })
      return null
    },
    /** Moves the devnet's clock to this unix time (it keeps ticking from there). */
    litesvm_setClock: ([unixTimestamp]) => {
      clockOffset = BigInt(unixTimestamp as number) - BigInt(Math.floor(Date.now() / 1000))
      syncClock()
      return null
    },
    /**
     * Sets the prioritization fees of recent slots (micro-lamports per compute unit, oldest first;
     * one value: every recent slot), for transactions writing `accounts`, or every one without.
     */
    litesvm_setPrioritizationFees: ([fees, accounts]) => {
      if (!Array.isArray(fees) || (accounts !== undefined && !Array.isArray(accounts)))
        throw new RpcError(-32602, 'Invalid params: expected [fees[], accounts[]?]')
      feeMarket.set(
        fees.map((f) => BigInt(f as number)),
        accounts as string[] | undefined,
      )
      return null
    },
    /** Makes the devnet congested: a transaction bidding less (micro-lamports per unit) is accepted and never lands. 0 ends it. */
    litesvm_setMinimumPriorityFee: ([microLamports]) => {
      feeMarket.setMinimum(BigInt(microLamports as number))
      return null
    },
    /** Ends the current blockhash's life at once: the block height moves past its last valid one. */
    litesvm_expireBlockhash: () => {
      slot = blockhashValidUntil + 1n
      expireIfDue()
      return svm.latestBlockhash()
    },
  }

  function handle(request: unknown): unknown {
    const { id = null, method, params = [] } = (request ?? {}) as { id?: unknown; method?: unknown; params?: unknown }
    try {
      if (typeof method !== 'string') throw new RpcError(-32600, 'Invalid request')
      const fn = Object.hasOwn(methods, method) ? methods[method] : undefined
      if (!fn) throw new RpcError(-32601, 'Method not found')
      return { jsonrpc: '2.0', id, result: fn(Array.isArray(params) ? params : []) }
    } catch (err) {
      if (err instanceof RpcError)
        return {
          jsonrpc: '2.0',
          id,
          error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) },
        }
      return { jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: ${(err as Error).message}` } }
    }
  }

  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end()
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      let body: unknown
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(toJson({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }))
        return
      }
      const answer = Array.isArray(body) ? body.map(handle) : handle(body)
      res.writeHead(200, { 'content-type': 'application/json' }).end(toJson(answer))
    })
  })
  return { server, genesisHash, svm }
}
