// The port every runtime implements (EVM, Solana, Sui). Domain code talks only to
// this interface; the registry picks the adapter by CAIP-2 namespace.
import type { Hex } from 'viem'
import type { FieldError } from '../errors/inputError.ts'
import type { LentEndpoints } from './chainEndpoints.ts'
import type { ChainType } from './chainId.ts'
import type { ChainRuntime } from './chainRuntime.ts'
import type { EndpointView } from './endpoint.ts'
import type { FundingShortfall } from './fundingShortfall.ts'
import type { AccountMode, Intent } from './intent.ts'

export type ExecutionReceipt = {
  /** `mined` executed the intent; `reverted` was mined without effect. */
  state: 'mined' | 'reverted'
  /** ERC-1066: 0x11 when executed, else the code decoded from the revert. */
  status: number
  /** The chain's transaction id (EVM: the 0x hash; Sui: the base58 digest; Solana: the base58 signature). */
  transactionHash: string
  blockNumber: bigint
  /** The chain's id of the block that holds it (EVM: block hash): what a reorg check compares. */
  blockHash?: string | undefined
  gasUsed: bigint
  returnData: Hex | undefined
  detail: string | undefined
  /** What the relayer paid for it, in the chain's smallest unit (EVM: gas used × effective gas price); absent where unknown. */
  fee?: bigint | undefined
  /**
   * A revert that used up the gas limit this gateway chose, below the cap: the gateway's fault,
   * not the intent's outcome. It consumes no payment and costs no standing; the intent may be sent
   * again (with a higher limit).
   */
  outOfGas?: boolean | undefined
  /**
   * Account mode: mined without error but without the intent's IntentExecuted from the sender (its
   * authorization was skipped, its code is not our delegate): not the intent's outcome. The record
   * is dropped and the intent may be sent again; it counts as a revert on the sender's standing.
   */
  notExecuted?: boolean | undefined
}

/** What the caller bounds an execution by, and what it knows of earlier attempts. */
export type ExecutionOptions = {
  /** The most gas this execution may use (a priced execute: what its price covers), below the chain's own cap. */
  gasCap?: bigint | undefined
  /** The transaction of the intent's last attempt, when it was dropped (its limit may have been too low). */
  previous?: SignedExecution | undefined
  /**
   * A transaction the chain will run just before this execution (a paid execute's x402
   * settlement), as the payment mechanism describes it: a runtime that can simulates the two
   * together, in that order, and refuses the execution when it fails after it. Runtime-owned data
   * (EVM: `{ from, to, data }`); a runtime that cannot simulate two transactions in order ignores it.
   */
  precededBy?: PrecedingTransaction | undefined
  /** Account mode (EVM): run from the sender's own address through its delegate, with its authorization when it brought one. */
  account?: AccountMode | undefined
  /** When its request came (performance.now()): a runtime's log line of the send may say how long each step took from there. */
  receivedAt?: number | undefined
}

/** A transaction another part of the gateway will have mined before an execution: its runtime's own JSON. */
export type PrecedingTransaction = { [key: string]: JsonValue }

export type Submission = {
  transactionHash: string
  /** False when the node's answer to the broadcast was lost; reconciliation delivers it then. */
  accepted: boolean
  /** Settles when the transaction is mined; never rejects for a revert, only for faults. */
  receipt: Promise<ExecutionReceipt>
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/**
 * What the runtime signed, for the journal to keep before anything is broadcast: the same shape on
 * every chain. Only the runtime that wrote `bytes` and `details` reads them.
 */
export type SignedExecution = {
  /** The chain's transaction id: the EVM transaction hash, the Sui digest, the Solana signature. */
  id: string
  /**
   * The signed transaction as the runtime broadcasts it again, base64 (the encoding Solana's and
   * Sui's RPCs take, and a third smaller than hex; EVM turns it back into its 0x RLP).
   */
  bytes: string
  /** The account that signed and pays (EVM and Sui: 0x address; Solana: base58 key). */
  relayer: string
  /** Small, JSON, the runtime's own (EVM: `{ txNonce }`; Sui: `{ gasCoin: { objectId, version } }`). */
  details: { [key: string]: JsonValue }
  /**
   * The epoch of the relayer key's lease it was signed under (EVM keys leased among instances;
   * not stored). The journal records it only while this instance still holds the key under that
   * epoch, else throws RelayerLeaseMovedError: a write that lands after another instance took the
   * key (and may have used the nonce) never becomes a transaction for that instance to find.
   */
  leaseEpoch?: number | undefined
  /**
   * One call of a bundle (EVM: IntentBundler's `run`, `contracts/IntentBundler.sol`): the
   * transaction carries other executions too, and this one is its call at `index`. `bytes` are the
   * whole bundle's: the journal keeps them once for all its calls (the `transactions` table), and a
   * record of a call, read back, carries none (`bytes` is empty): `Journal.transactionBytes` reads
   * them.
   */
  bundle?: { index: number } | undefined
}

export type Preflight =
  /** The chain's validator refuses the intent: answer with this code, send nothing (`problemType`: a refusal of its own kind). */
  | {
      ok: false
      status: number
      detail: string | undefined
      problemType?: string | undefined
      errors?: FieldError[] | undefined
    }
  /** `onSigned` runs before the broadcast; if it throws, nothing is sent. */
  | {
      ok: true
      send: (hooks: { onSigned: (tx: SignedExecution) => void | Promise<void> }) => Promise<Submission>
      /** Gives back what preflight held for the send (the relayer key chosen first) when nothing is sent. */
      cancel?: (() => void) | undefined
      /**
       * Simulates the execution again at the chain's state now, before `send`, for the caller to
       * run once `precededBy` is confirmed: a runtime that cannot simulate it together with the
       * execution (Solana: no RPC simulates two transactions in order) always does; EVM does when
       * the simulation made with it no longer holds (executions signed meanwhile, a batch-mate not
       * sent). A refusal answers as prepareExecution's would; undefined: still good to send.
       * (`send` itself simulates again, and throws ExecutionRefusedError on a refusal, where the
       * simulation no longer holds at the signature.)
       */
      recheck?:
        | (() => Promise<
            { ok: false; status: number; detail: string | undefined; problemType?: string | undefined } | undefined
          >)
        | undefined
    }

/** What the reconciler hands `reconcile`: the journaled transaction and what else is known of it. */
export type ReconcileRequest = SignedExecution & {
  intent: Intent
  /**
   * Earlier attempts this transaction replaced (re-priced, re-signed): any of them may be the one
   * that is mined; a `settled` answer names the one in its receipt's `transactionHash`.
   */
  replaced?: readonly SignedExecution[] | undefined
  /**
   * The record was made on another instance of this chain (reset on the same id): settle it from
   * the chain if it is there, else drop it; never broadcast it again.
   */
  otherInstance?: boolean | undefined
}

/** What the chain says of a settled execution that is not final yet. */
export type MinedCheck =
  /** Still in the chain, in the same block, this many blocks deep (1 = in the latest block). */
  | { kind: 'present'; confirmations: number }
  /** Its block left the chain (reorg, or the chain was reset): reopen and reconcile it. */
  | { kind: 'gone'; detail: string }

/** A replacement for a stuck transaction, signed but not broadcast: journal it, then broadcast. */
export type Replacement = {
  tx: SignedExecution
  /** Why, for the journal and the log (e.g. the fees before and after). */
  detail: string
  broadcast(): Promise<void>
}

/** What the chain says of a journaled transaction that is not settled. */
export type Reconciliation =
  | { kind: 'settled'; receipt: ExecutionReceipt }
  /** The node has it and has not mined it yet. */
  | { kind: 'pending' }
  /** The node had lost it: it was broadcast again, byte for byte. */
  | { kind: 'rebroadcast' }
  /**
   * The node had lost it and refuses it as it is (EVM: its max fee is below the base fee now): it
   * still holds its place (relayer nonce) and waits for a replacement (see `replacement`).
   */
  | { kind: 'refused'; detail: string }
  /** Another transaction took its relayer nonce. `executed`: whether the intent ran anyway (through someone else). */
  | { kind: 'dropped'; executed: boolean; detail: string }

export type ChainHealth = {
  chainId: string
  chainType: ChainType
  /** False when preflight found the contracts missing: requests get 503 until restart. */
  available: boolean
  unavailableReason: string | undefined
  reachable: boolean
  blockNumber: string | undefined
  latencyMs: number | undefined
  error: string | undefined
}

/** What start-up found on the chain: contracts present, missing, or no answer to ask. */
export type PreflightResult = { ok: true } | { ok: false; missing: string[] } | { ok: false; unreachable: string }

/**
 * What a sender signs to authorize an intent on this chain, in the runtime's own terms (EVM: the
 * EIP-712 typed data, `domain`, `types`, `primaryType`, `message`), as JSON.
 */
export type SigningRequest = Record<string, unknown>

export type ChainDescription = {
  chainId: string
  chainType: ChainType
  reference: string
  name: string
  nativeCurrency: { name: string; symbol: string; decimals: number }
  /** `accountDelegate`: the EIP-7702 delegate (IntentAccount) account mode's authorizations name, where configured. */
  contracts: { validator: string; executor: string; registry: string; accountDelegate?: string | undefined }
  relayer: string | undefined
  /** Where a single relayer key (Solana, Sui) lives: `local`, `pkcs11`, `kms`; never the key. A pool's keys say it in `relayers`. */
  relayerSigner?: string | undefined
  /** A relayer pool: each key, whether this instance holds it and it can pay, its sends in flight. */
  relayers?:
    | Array<{
        address: string
        held: boolean
        funded: boolean
        inFlight: number
        signer?: string /** The next nonce as this instance counts it (EVM), once read. */
        nonce?: number | undefined
      }>
    | undefined
  available: boolean
  unavailableReason: string | undefined
  endpoints: EndpointView[]
  /** How intents are signed on this chain (EVM: the EIP-712 domain, types and primary type). */
  signing: SigningRequest | undefined
  /** When this gateway holds a transaction final (executions and x402 settlements alike). */
  finality: ChainFinality
}

/**
 * A chain's finality rule: `depth` (EVM: `confirmations` blocks deep, CONFIRMATIONS), `commitment`
 * (Solana: the commitment level a status must reach) or `effects` (Sui: final once the validators'
 * effects are certified; no reorgs). `description` says it in words.
 */
export type ChainFinality =
  | { rule: 'depth'; confirmations: number; description: string }
  | { rule: 'commitment'; commitment: 'confirmed' | 'finalized'; description: string }
  | { rule: 'effects'; description: string }

export type ChainAdapter = {
  chainId: string
  chainType: ChainType
  /** Whether this gateway can send transactions on the chain. */
  canExecute: boolean
  /** How intents are parsed and hashed on this chain (Solana's hash covers the deployment: program id and config account). */
  runtime: ChainRuntime
  /**
   * How many blocks deep (1 = in the latest block) an execution must be before it is reported
   * final (CONFIRMATIONS); until then it is mined but can still be undone by a reorg. Default 1.
   */
  confirmations?: number
  /** The executor contract, where depositing funds resolves INSUFFICIENT_FUNDS. */
  executorAddress: string
  /** The relayer's balance in the chain's smallest unit (metrics); absent without a relayer. */
  relayerBalance?: () => Promise<bigint>
  /** Each relayer key's own balance and its nonce on chain (transactions mined), for the operator's console; absent without a relayer pool. */
  relayerAccounts?: () => Promise<Array<{ address: string; balance: bigint; nonce: number }>>
  /**
   * Whether this instance holds a relayer key it may send from now (several instances share the
   * keys by lease); asked before an execution is claimed. Absent: always.
   */
  canSendNow?(): Promise<boolean>
  /** Whether this instance sends from this relayer key now (its records are this instance's to reconcile); absent: its one relayer. */
  holdsRelayer?: (relayer: string) => boolean
  /**
   * One read of the chain: the ERC-1066 code for the intent as of the latest block. With a
   * signature, the chain checks it too (a wrong one answers 0xE4).
   */
  validate(intent: Intent, signature?: Hex, account?: AccountMode): Promise<ValidateAnswer>
  /**
   * Validates, then simulates the execution (the signed one when a signature is given) as the
   * chain will run it: from the relayer key that will send it, with its fees and gas limit; the
   * caller decides whether to send (and calls `cancel` when it does not).
   */
  prepareExecution(intent: Intent, signature?: Hex, options?: ExecutionOptions): Promise<Preflight>
  /**
   * Why the intent is short of funds (after a 0x54): the sender's deposit or a policy cap, read
   * from the chain. Absent on runtimes that cannot say.
   */
  fundingShortfall?(intent: Intent, account?: AccountMode): Promise<FundingShortfall | undefined>
  /** What the sender must sign for this intent: carried by every 401 that asks for a signature. */
  signingRequest(intent: Intent, account?: AccountMode): SigningRequest
  /** Whether this chain runs intents in account mode (EVM with an ACCOUNT_DELEGATE_ADDRESSES entry). */
  accountMode?: boolean | undefined
  /**
   * Why this chain has no account mode here, in the runtime's words (the 400 on `mode` a request
   * asking for it gets): set where `accountMode` is false. Absent, the shared words say that no
   * account delegate is configured (ACCOUNT_DELEGATE_ADDRESSES).
   */
  accountModeUnavailable?: string | undefined
  /** GET /accounts/{address}: whether an account is delegated to this chain's account delegate, and its nonce (EVM only). */
  readAccount?(address: string): Promise<AccountView>
  /**
   * Finds out what became of a journaled transaction, and broadcasts it again if the node lost it.
   * The reconciler calls it in the order the transactions were signed, or in `sequenceOf` order
   * among one relayer's transactions where the adapter has one.
   */
  reconcile(tx: ReconcileRequest): Promise<Reconciliation>
  /**
   * Where a signed transaction stands in the order its relayer's transactions must reach the
   * chain (EVM: its relayer nonce). Journal writes may commit out of that order.
   */
  sequenceOf?(tx: SignedExecution): number
  /**
   * Which instance of the chain the node serves now (EVM: the genesis hash, and a dev node's
   * instance id): it changes when a chain is reset on the same id. Records are bound to it. May
   * answer from a short cache.
   */
  chainInstance?(): Promise<string>
  /**
   * Whether the chain still has the execution a journal record says was mined (its transaction's
   * receipt in the same block), or the intent was executed anyway (its nonce used): asked before
   * answering 409 from the journal.
   */
  confirmExecuted?(
    tx: SignedExecution & { intent: Intent; blockNumber: bigint | undefined; blockHash: string | undefined },
  ): Promise<boolean>
  /** How deep a settled, not yet final execution is, or that its block is gone (reorg). */
  checkMined?(
    tx: SignedExecution & { blockNumber: bigint | undefined; blockHash: string | undefined },
  ): Promise<MinedCheck>
  /**
   * A replacement for a transaction that has been pending for `pendingForMs` without being mined,
   * when the runtime can make one that has a better chance (EVM: the same relayer nonce with fees
   * raised to the market, at least the node's replacement minimum, within the fee ceiling);
   * undefined when there is nothing to do.
   */
  replacement?(tx: ReconcileRequest, pendingForMs: number): Promise<Replacement | undefined>
  /**
   * After each reconciliation pass: the relayers held here whose own transactions wait at the node
   * behind a sequence number nothing will use (EVM: an empty nonce under queued transactions) are
   * let through (the gap filled with a no-op). How many gaps were filled.
   */
  fillGaps?(): Promise<number>
  getHealth(): Promise<ChainHealth>
  /** Checks that the validator, executor and registry have code on the chain. */
  preflight(): Promise<PreflightResult>
  /** Answers every request with 503 (0xF4) and this reason from now on. */
  markUnavailable(reason: string): void
  describe(): ChainDescription
  /**
   * The chain's endpoints lent to payments (x402 settlement and recovery reach the node through
   * the runtime's pool: failover, standing, metrics; ports/chainEndpoints.ts). Absent where the
   * runtime lends none (Sui); the composition root collects them.
   */
  lendEndpoints?(): LentEndpoints
  close(): Promise<void>
}

/** What validate reads: an ERC-1066 code, or a refusal with its detail and problem type (account mode: not delegated). */
/**
 * An account as account mode sees it (GET /accounts/{address}): `code` none (an EOA), delegation
 * (0xef0100 ‖ an address, EIP-7702) or contract; `delegated` when it delegates to this chain's
 * `accountDelegate`; `nonce` its transaction count (what its authorization must carry), decimal.
 */
export type AccountView = {
  address: string
  chainId: string
  accountDelegate: string | null
  delegated: boolean
  delegatedTo: string | null
  code: 'none' | 'delegation' | 'contract'
  nonce: string
}

/** `errors`: the part of the intent a refusal concerns (a batch's `calls[i]`). */
export type ValidateAnswer =
  | number
  | { status: number; detail: string; problemType?: string | undefined; errors?: FieldError[] | undefined }
