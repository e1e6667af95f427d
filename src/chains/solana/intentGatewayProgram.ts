// The Solana program's instructions and accounts as @solana/kit sees them (layouts in
// programs/solana/README.md): PDAs, instruction builders, account decoders and error names.
// Shared by the adapter, the devnet seeding and the tests.
import {
  type AccountMeta,
  AccountRole,
  type Address,
  getAddressDecoder,
  getAddressEncoder,
  getProgramDerivedAddress,
  type Instruction,
  type ReadonlyUint8Array,
  type TransactionSigner,
} from '@solana/kit'
import type { Intent } from '../../ports/intent.ts'
import { canonicalIntentBytes, type SolanaDeployment } from './canonicalIntentBytes.ts'

export const systemProgram = '11111111111111111111111111111111' as Address
export const instructionsSysvar = 'Sysvar1nstructions1111111111111111111111111' as Address
export const ed25519Program = 'Ed25519SigVerify111111111111111111111111111' as Address
/** The BPF upgradeable loader: init_config reads the upgrade authority from the program data it owns. */
const loaderV3 = 'BPFLoaderUpgradeab1e11111111111111111111111' as Address
/** An Ed25519 instruction offset's instruction index meaning "this instruction". */
export const currentInstruction = 0xffff
const encoder = getAddressEncoder()
const utf8 = (s: string) => new TextEncoder().encode(s)
const u64 = (n: bigint) => {
  const b = new Uint8Array(8)
  new DataView(b.buffer).setBigUint64(0, n, true)
  return b
}
const i64 = (n: bigint) => {
  const b = new Uint8Array(8)
  new DataView(b.buffer).setBigInt64(0, n, true)
  return b
}
const bytes32 = (hex: string) => {
  const b = Buffer.from(hex.replace(/^0x/, ''), 'hex')
  if (b.length !== 32) throw new Error('expected 32 bytes')
  return Uint8Array.from(b)
}
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

export type PolicyParameters = {
  policyId: `0x${string}`
  maxValuePerTx: bigint
  maxAggregateValue: bigint
  validAfter?: bigint
  validBefore?: bigint
  allowedTargets?: Address[]
  /** Allowed instruction-data prefixes, 1 to 8 bytes each, as 0x hex. */
  allowedPrefixes?: `0x${string}`[]
  /** Keys that may sign for the owner in part 2 (at most 4). */
  delegates?: Address[]
}

export type Policy = {
  owner: Address
  policyId: `0x${string}`
  maxValuePerTx: bigint
  maxAggregateValue: bigint
  spent: bigint
  validAfter: bigint
  validBefore: bigint
  allowedTargets: Address[]
  allowedPrefixes: `0x${string}`[]
  delegates: Address[]
}

/** Custom(n) errors of the program, by code. */
export const programErrors: Record<number, string> = {
  1: 'invalid instruction data',
  2: 'not enough accounts',
  3: 'a required signature is missing',
  4: 'an account is not the expected PDA or has the wrong owner',
  5: 'the signer does not own this account',
  6: 'the vault holds less than asked',
  7: 'the intent is bound to another deployment (domain, program id or config account)',
  8: 'the config account is already initialized',
  9: 'the rent sysvar has an exemption threshold this program does not support',
  10: 'invalid policy (too many targets, prefixes or delegates, or a prefix longer than 8 bytes)',
  11: 'arithmetic overflow',
  12: 'a system program call failed',
  13: "an account meta asks for a signer other than the sender's vault (execute) or the sender (execute_as_signer)",
  14: 'a value needs a first account meta that is writable, not a signer and not the vault, to receive it',
  15: "the target took more than the intent's value from the vault",
  16: 'too many account metas (at most 16)',
  17: "the signer is not the program's upgrade authority (init_config)",
  18: 'an account meta is a signer of the transaction other than the sender, such as the fee payer (execute_as_signer)',
}

/**
 * Statuses the program's execute refuses with as Custom(status) (validate's statuses, and 0xE4
 * for a signature it does not accept); every other Custom(n) is one of programErrors.
 */
export const programStatuses = new Set([0x10, 0x20, 0x21, 0x22, 0x54, 0xe4])

/** Where the Ed25519 instruction's parts lie (its offsets), and which instruction holds each. */
export type Ed25519Layout = { publicKeyAt: number; signatureAt: number; messageAt: number; instructionIndex: number }

/**
 * The Ed25519 program's instruction verifying one signature, with the key, signature and message
 * inside the instruction itself (what the program's execute accepts): header (count u8, padding
 * u8, seven u16 offsets) at 0, key at 16, signature at 48, message at 112.
 */
export function ed25519Instruction(
  publicKey: Uint8Array,
  signature: Uint8Array,
  message: Uint8Array,
  layout: Partial<Ed25519Layout> = {},
): Instruction {
  if (publicKey.length !== 32 || signature.length !== 64)
    throw new Error('an Ed25519 key is 32 bytes and a signature 64')
  const { publicKeyAt = 16, signatureAt = 48, messageAt = 112, instructionIndex = currentInstruction } = layout
  const data = new Uint8Array(
    Math.max(16 + 32 + 64 + message.length, publicKeyAt + 32, signatureAt + 64, messageAt + message.length),
  )
  const view = new DataView(data.buffer)
  data[0] = 1
  const header = [
    signatureAt,
    instructionIndex,
    publicKeyAt,
    instructionIndex,
    messageAt,
    message.length,
    instructionIndex,
  ]
  header.forEach((n, i) => view.setUint16(2 + i * 2, n, true))
  data.set(publicKey, publicKeyAt)
  data.set(signature, signatureAt)
  data.set(message, messageAt)
  return { programAddress: ed25519Program, accounts: [], data }
}

export const accountSizes = { config: 104, policy: 576, vault: 48, nonce: 48, deployment: 48 } as const
export const accountTags = { config: 1, policy: 2, vault: 3, nonce: 4, deployment: 5 } as const

export function createIntentGatewayProgram(programId: Address) {
  const pda = async (seeds: (Uint8Array | ReadonlyUint8Array)[]) =>
    (await getProgramDerivedAddress({ programAddress: programId, seeds }))[0]
  const signerMeta = (signer: TransactionSigner, writable = true) => ({
    address: signer.address,
    role: writable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER,
    signer,
  })
  const meta = (address: Address, role: AccountRole): AccountMeta => ({ address, role })

  const program = {
    programId,
    configAddress: (cluster: Uint8Array) => pda([utf8('config'), cluster]),
    /** Created with the config: one config per program and cluster. */
    deploymentAddress: () => pda([utf8('deployment')]),
    policyAddress: (owner: Address, policyId: `0x${string}`) =>
      pda([utf8('policy'), encoder.encode(owner), bytes32(policyId)]),
    vaultAddress: (owner: Address) => pda([utf8('vault'), encoder.encode(owner)]),
    nonceAddress: (sender: Address, nonce: bigint) => pda([utf8('nonce'), encoder.encode(sender), u64(nonce)]),

    /** Signed by the program's upgrade authority (it pays too): the program refuses anyone else (Custom(17)). */
    async initConfig(authority: TransactionSigner, cluster: Uint8Array): Promise<Instruction> {
      if (cluster.length !== 32) throw new Error('cluster must be 32 bytes (the genesis hash)')
      const [programData] = await getProgramDerivedAddress({
        programAddress: loaderV3,
        seeds: [encoder.encode(programId)],
      })
      return {
        programAddress: programId,
        accounts: [
          signerMeta(authority),
          meta(await program.configAddress(cluster), AccountRole.WRITABLE),
          meta(systemProgram, AccountRole.READONLY),
          meta(await program.deploymentAddress(), AccountRole.WRITABLE),
          meta(programId, AccountRole.READONLY),
          meta(programData, AccountRole.READONLY),
        ],
        data: concat(Uint8Array.of(0), cluster),
      }
    },

    async setPolicy(owner: TransactionSigner, p: PolicyParameters): Promise<Instruction> {
      const targets = p.allowedTargets ?? []
      const prefixes = p.allowedPrefixes ?? []
      const delegates = p.delegates ?? []
      const prefixSlots = prefixes.map((hex) => {
        const raw = Buffer.from(hex.slice(2), 'hex')
        const slot = new Uint8Array(9)
        slot[0] = raw.length
        slot.set(raw.subarray(0, 8), 1)
        return slot
      })
      return {
        programAddress: programId,
        accounts: [
          signerMeta(owner),
          meta(await program.policyAddress(owner.address, p.policyId), AccountRole.WRITABLE),
          meta(systemProgram, AccountRole.READONLY),
        ],
        data: concat(
          Uint8Array.of(1),
          bytes32(p.policyId),
          u64(p.maxValuePerTx),
          u64(p.maxAggregateValue),
          i64(p.validAfter ?? 0n),
          i64(p.validBefore ?? 0n),
          Uint8Array.of(targets.length, prefixes.length, delegates.length),
          ...targets.map((t) => encoder.encode(t) as Uint8Array),
          ...prefixSlots,
          ...delegates.map((d) => encoder.encode(d) as Uint8Array),
        ),
      }
    },

    async deposit(sender: TransactionSigner, lamports: bigint): Promise<Instruction> {
      return {
        programAddress: programId,
        accounts: [
          signerMeta(sender),
          meta(await program.vaultAddress(sender.address), AccountRole.WRITABLE),
          meta(systemProgram, AccountRole.READONLY),
        ],
        data: concat(Uint8Array.of(2), u64(lamports)),
      }
    },

    /** `vaultOwner` defaults to the signer: a different one is how tests try to take another's funds. */
    async withdraw(
      sender: TransactionSigner,
      lamports: bigint,
      vaultOwner: Address = sender.address,
    ): Promise<Instruction> {
      return {
        programAddress: programId,
        accounts: [signerMeta(sender), meta(await program.vaultAddress(vaultOwner), AccountRole.WRITABLE)],
        data: concat(Uint8Array.of(3), u64(lamports)),
      }
    },

    /** The validate instruction: read-only accounts, the canonical bytes as data. */
    async validate(intent: Intent, config: Address): Promise<Instruction> {
      const sender = intent.sender as Address
      const deployment: SolanaDeployment = { programId, config }
      return {
        programAddress: programId,
        accounts: [
          meta(config, AccountRole.READONLY),
          meta(await program.policyAddress(sender, intent.policyId), AccountRole.READONLY),
          meta(await program.vaultAddress(sender), AccountRole.READONLY),
          meta(await program.nonceAddress(sender, intent.nonce), AccountRole.READONLY),
        ],
        data: concat(Uint8Array.of(4), canonicalIntentBytes(intent, deployment)),
      }
    },

    /**
     * The execute instruction: accounts config, policy, vault, nonce record (the last three
     * writable), the instructions sysvar, the system program, the target, then one account per
     * signed account meta (writable as signed, never a signer: the program signs for the vault).
     * It must come right after the Ed25519 instruction carrying the signature. `sysvar` and
     * `accounts` replace what is passed (not what is signed): tests use them to lie.
     */
    async execute(
      intent: Intent,
      config: Address,
      options: { sysvar?: Address; accounts?: Address[] } = {},
    ): Promise<Instruction> {
      const sender = intent.sender as Address
      const metas = intent.accounts ?? []
      return {
        programAddress: programId,
        accounts: [
          meta(config, AccountRole.READONLY),
          meta(await program.policyAddress(sender, intent.policyId), AccountRole.WRITABLE),
          meta(await program.vaultAddress(sender), AccountRole.WRITABLE),
          meta(await program.nonceAddress(sender, intent.nonce), AccountRole.WRITABLE),
          meta(options.sysvar ?? instructionsSysvar, AccountRole.READONLY),
          meta(systemProgram, AccountRole.READONLY),
          meta(intent.target as Address, AccountRole.READONLY),
          ...metas.map((m, i) =>
            meta(
              (options.accounts?.[i] ?? m.address) as Address,
              m.writable ? AccountRole.WRITABLE : AccountRole.READONLY,
            ),
          ),
        ],
        data: concat(Uint8Array.of(5), canonicalIntentBytes(intent, { programId, config })),
      }
    },

    /**
     * Agent as signer (`mode: "account"`): validate with the sender's own account in the vault's
     * place, its lamports (less the nonce record's rent) as the funds the value comes from.
     */
    async validateAsSigner(intent: Intent, config: Address): Promise<Instruction> {
      const sender = intent.sender as Address
      return {
        programAddress: programId,
        accounts: [
          meta(config, AccountRole.READONLY),
          meta(await program.policyAddress(sender, intent.policyId), AccountRole.READONLY),
          meta(sender, AccountRole.READONLY),
          meta(await program.nonceAddress(sender, intent.nonce), AccountRole.READONLY),
        ],
        data: concat(Uint8Array.of(8), canonicalIntentBytes(intent, { programId, config })),
      }
    },

    /**
     * Agent as signer (`mode: "account"`): accounts config, policy (writable), the sender (writable
     * signer: it signs the transaction and pays the nonce record's rent and the value), nonce
     * record (writable), the system program, the target, then one account per signed account meta
     * (a signer only where the meta asks for the sender). No Ed25519 instruction: the sender's
     * signature of the transaction is the authorization. `accounts` replaces what is passed (not
     * what is signed), `senderSigner` the sender's signer: tests use them to lie.
     */
    async executeAsSigner(
      intent: Intent,
      config: Address,
      options: { accounts?: Address[]; senderSigner?: TransactionSigner; senderRole?: AccountRole } = {},
    ): Promise<Instruction> {
      const sender = intent.sender as Address
      const metas = intent.accounts ?? []
      const roleOf = (m: { address: string; signer: boolean; writable: boolean }) =>
        m.signer
          ? m.writable
            ? AccountRole.WRITABLE_SIGNER
            : AccountRole.READONLY_SIGNER
          : m.writable
            ? AccountRole.WRITABLE
            : AccountRole.READONLY
      const senderMeta: AccountMeta = options.senderSigner
        ? ({
            address: sender,
            role: options.senderRole ?? AccountRole.WRITABLE_SIGNER,
            signer: options.senderSigner,
          } as AccountMeta)
        : meta(sender, options.senderRole ?? AccountRole.WRITABLE_SIGNER)
      return {
        programAddress: programId,
        accounts: [
          meta(config, AccountRole.READONLY),
          meta(await program.policyAddress(sender, intent.policyId), AccountRole.WRITABLE),
          senderMeta,
          meta(await program.nonceAddress(sender, intent.nonce), AccountRole.WRITABLE),
          meta(systemProgram, AccountRole.READONLY),
          meta(intent.target as Address, AccountRole.READONLY),
          ...metas.map((m, i) => {
            const address = (options.accounts?.[i] ?? m.address) as Address
            // The sender's signature reaches the target where a meta asks for it; the sender signs the whole transaction anyway.
            if (m.signer && address === sender && options.senderSigner)
              return { address, role: roleOf(m), signer: options.senderSigner } as AccountMeta
            return meta(address, roleOf(m))
          }),
        ],
        data: concat(Uint8Array.of(7), canonicalIntentBytes(intent, { programId, config })),
      }
    },

    /** Marks the sender's nonce used without executing anything; the sender pays the record's rent. */
    async cancel(sender: TransactionSigner, nonce: bigint): Promise<Instruction> {
      return {
        programAddress: programId,
        accounts: [
          signerMeta(sender),
          meta(await program.nonceAddress(sender.address, nonce), AccountRole.WRITABLE),
          meta(systemProgram, AccountRole.READONLY),
        ],
        data: concat(Uint8Array.of(6), u64(nonce)),
      }
    },

    /** A nonce record as the program writes it, or undefined for anything else. */
    decodeNonceRecord(
      data: Uint8Array,
    ): { state: 'executed' | 'cancelled'; intentHash: `0x${string}`; slot: bigint } | undefined {
      if (data.length !== accountSizes.nonce || data[0] !== accountTags.nonce) return undefined
      return {
        state: data[3] === 2 ? 'cancelled' : 'executed',
        intentHash: `0x${Buffer.from(data.subarray(8, 40)).toString('hex')}`,
        slot: new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(40, true),
      }
    },

    decodePolicy(data: Uint8Array): Policy | undefined {
      if (data.length !== accountSizes.policy || data[0] !== accountTags.policy) return undefined
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
      const key = (at: number) => decodeAddress(data.subarray(at, at + 32))
      return {
        owner: key(8),
        policyId: `0x${Buffer.from(data.subarray(40, 72)).toString('hex')}`,
        maxValuePerTx: view.getBigUint64(72, true),
        maxAggregateValue: view.getBigUint64(80, true),
        spent: view.getBigUint64(88, true),
        validAfter: view.getBigInt64(96, true),
        validBefore: view.getBigInt64(104, true),
        allowedTargets: Array.from({ length: data[112]! }, (_, i) => key(120 + i * 32)),
        allowedPrefixes: Array.from({ length: data[113]! }, (_, i) => {
          const at = 376 + i * 9
          return `0x${Buffer.from(data.subarray(at + 1, at + 1 + data[at]!)).toString('hex')}` as const
        }),
        delegates: Array.from({ length: data[114]! }, (_, i) => key(448 + i * 32)),
      }
    },

    /** A spent-nonce record as execute writes it (tests plant one). */
    nonceRecord(
      bump: number,
      intentHash: Uint8Array,
      slot: bigint,
      state: 'executed' | 'cancelled' = 'executed',
    ): Uint8Array {
      const out = new Uint8Array(accountSizes.nonce)
      out[0] = accountTags.nonce
      out[1] = 1
      out[2] = bump
      out[3] = state === 'executed' ? 1 : 2
      out.set(intentHash, 8)
      out.set(u64(slot), 40)
      return out
    },
  }
  return program
}

export type IntentGatewayProgram = ReturnType<typeof createIntentGatewayProgram>

const addressDecoder = getAddressDecoder()
function decodeAddress(bytes: Uint8Array): Address {
  return addressDecoder.decode(bytes)
}
