// The signing cost of each relayer-key backend (issue 31): N signatures one after another per
// backend, in rounds, the median round printed as µs per signature. EVM keys sign an EIP-1559
// transaction as the relayer does (a key in the process: toRelayerAccount, native libsecp256k1; a
// remote key: the digest signed outside, then low s and the recovery id found by recovering the
// public key); Solana and Sui keys sign a 1232-byte message (Solana's
// largest transaction message; Sui signs a 32-byte digest, which costs the same or less).
// Backends: a key in the process, SoftHSM2 through PKCS#11 (a software token: a hardware HSM is
// slower and its latency is its own), and the KMS stand-in over loopback HTTP (the AWS SDK's
// whole request path, SigV4 included, but not AWS's network or service time).
//   npx tsx bench/signing.ts [--n 200] [--rounds 5]
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import type { LocalAccount } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { toRelayerAccount } from '../src/chains/evm/relayer/toRelayerAccount.ts'
import { createKmsEd25519Signer } from '../src/signers/createKmsEd25519Signer.ts'
import { createKmsSigner } from '../src/signers/createKmsSigner.ts'
import { createLocalEd25519Signer } from '../src/signers/createLocalEd25519Signer.ts'
import { createPkcs11EdDsaSigner } from '../src/signers/createPkcs11EdDsaSigner.ts'
import { createPkcs11Signer } from '../src/signers/createPkcs11Signer.ts'
import { startKmsStandIn } from '../test/support/kmsStandIn.ts'
import { createSoftHsmToken, pkcs11Binding, softHsmModule } from '../test/support/softHsm.ts'

const { values } = parseArgs({
  options: { n: { type: 'string', default: '200' }, rounds: { type: 'string', default: '5' } },
})
const n = Number(values.n)
const rounds = Math.max(3, Number(values.rounds))

process.env.AWS_ACCESS_KEY_ID = 'AKIASTANDIN'
process.env.AWS_SECRET_ACCESS_KEY = 'stand-in-secret'
const evmKey = generatePrivateKey()
const edSeed = randomBytes(32)
const kms = await startKmsStandIn({ 'alias/evm': evmKey }, { 'alias/ed25519': { ed25519: edSeed } })
const token =
  softHsmModule && pkcs11Binding
    ? createSoftHsmToken(['evm'], 'bench', '1234', { ed25519Labels: ['ed25519'] })
    : undefined

const evmTransaction = {
  chainId: 1,
  type: 'eip1559' as const,
  to: '0x000000000000000000000000000000000000dEaD' as const,
  value: 1n,
  gas: 120_000n,
  nonce: 7,
  maxFeePerGas: 30_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
  data: '0x3f2b1c4d' as const,
}
const signsTransactions = (account: LocalAccount) => () => account.signTransaction(evmTransaction)
const edMessage = randomBytes(1232)
const backends: { name: string; sign: () => Promise<unknown> }[] = [
  { name: 'EVM secp256k1, local key', sign: signsTransactions(toRelayerAccount(evmKey)) },
  ...(token
    ? [
        {
          name: 'EVM secp256k1, PKCS#11 (SoftHSM2)',
          sign: signsTransactions(createPkcs11Signer({ ...token, keyLabel: 'evm' })),
        },
      ]
    : []),
  {
    name: 'EVM secp256k1, KMS stand-in (HTTP)',
    sign: signsTransactions(await createKmsSigner({ keyId: 'alias/evm', region: 'us-east-1', endpoint: kms.endpoint })),
  },
  {
    name: 'Ed25519, local key',
    sign: (
      (s) => () =>
        s.sign(edMessage)
    )(createLocalEd25519Signer(edSeed)),
  },
  ...(token
    ? [
        {
          name: 'Ed25519, PKCS#11 (SoftHSM2)',
          sign: (
            (s) => () =>
              s.sign(edMessage)
          )(createPkcs11EdDsaSigner({ ...token, keyLabel: 'ed25519' })),
        },
      ]
    : []),
  {
    name: 'Ed25519, KMS stand-in (HTTP)',
    sign: (
      (s) => () =>
        s.sign(edMessage)
    )(await createKmsEd25519Signer({ keyId: 'alias/ed25519', region: 'us-east-1', endpoint: kms.endpoint })),
  },
]

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!
const results: { backend: string; usPerSignature: number; rounds: number[] }[] = []
try {
  for (const backend of backends) {
    for (let i = 0; i < Math.min(20, n); i++) await backend.sign() // warm-up: JIT, connections, sessions
    const perRound: number[] = []
    for (let r = 0; r < rounds; r++) {
      const start = process.hrtime.bigint()
      for (let i = 0; i < n; i++) await backend.sign()
      perRound.push(Number(process.hrtime.bigint() - start) / 1000 / n)
    }
    results.push({
      backend: backend.name,
      usPerSignature: Math.round(median(perRound)),
      rounds: perRound.map(Math.round),
    })
  }
} finally {
  await kms.close()
  token?.remove()
}
const width = Math.max(...results.map((r) => r.backend.length))
process.stdout.write(
  `signing cost: ${n} signatures one after another per round, median of ${rounds} rounds (node ${process.version})\n`,
)
for (const r of results)
  process.stdout.write(
    `${r.backend.padEnd(width)}  ${String(r.usPerSignature).padStart(6)} µs/signature   rounds: ${r.rounds.join(' ')}\n`,
  )
if (!token) process.stdout.write('PKCS#11 not measured: SoftHSM2 or the pkcs11js binding is missing\n')
