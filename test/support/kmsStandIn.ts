// A local stand-in for AWS KMS that speaks its JSON 1.1 protocol as @aws-sdk/client-kms sends it
// (POST /, X-Amz-Target: TrentService.<Operation>, the request and answer shapes of the SDK's own
// types), holding secp256k1 keys: GetPublicKey answers the DER SubjectPublicKeyInfo, Sign
// (MessageType DIGEST) a DER ECDSA signature of the digest as given. It can answer with the high-s
// form, refuse, or hang, for the gateway's error paths. It holds Ed25519 keys too
// (ECC_NIST_EDWARDS25519: Sign with ED25519_SHA_512 over the RAW message). What it does not do:
// authenticate the request's SigV4 signature, or anything but these two operations.
import { createPrivateKey, createPublicKey, sign as signEd25519 } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type {
  GetPublicKeyCommandInput,
  GetPublicKeyCommandOutput,
  SignCommandInput,
  SignCommandOutput,
} from '@aws-sdk/client-kms'
import secp256k1 from 'secp256k1'
import { type Address, type Hex, hexToBytes } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'

const spkiPrefix = Buffer.from('3056301006072a8648ce3d020106052b8104000a034200', 'hex')
const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

type Wire<T> = { [K in keyof T]: T[K] extends Uint8Array | undefined ? string : T[K] }

export type KmsStandIn = {
  endpoint: string
  /** The address of a key the stand-in holds. */
  addressOf(keyId: string): Address
  /** How the next Sign calls answer. */
  mode: 'normal' | 'high-s' | 'refuse' | 'hang'
  signs: number
  close(): Promise<void>
}

/** An Ed25519 key the stand-in holds: its 32-byte seed. */
export type KmsEd25519Key = { ed25519: Uint8Array }

export async function startKmsStandIn(
  keys: Record<string, Hex>,
  ed25519Keys: Record<string, KmsEd25519Key> = {},
): Promise<KmsStandIn> {
  const held = new Map(Object.entries(keys).map(([id, key]) => [id, hexToBytes(key)]))
  const edHeld = new Map(
    Object.entries(ed25519Keys).map(([id, { ed25519 }]) => [
      id,
      createPrivateKey({
        key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), ed25519]),
        format: 'der',
        type: 'pkcs8',
      }),
    ]),
  )
  const state: KmsStandIn = { endpoint: '', addressOf, mode: 'normal', signs: 0, close }
  const hanging = new Set<import('node:http').ServerResponse>()
  function addressOf(keyId: string): Address {
    return publicKeyToAddress(`0x${Buffer.from(secp256k1.publicKeyCreate(held.get(keyId)!, false)).toString('hex')}`)
  }
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '')
      const answer = (status: number, json: unknown) =>
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(json))
      const input = JSON.parse(body || '{}') as { KeyId?: string }
      const edKey = input.KeyId ? edHeld.get(input.KeyId) : undefined
      if (edKey) return answerEd25519(target, input, edKey, answer, res)
      const key = input.KeyId ? held.get(input.KeyId) : undefined
      if (!key) return answer(400, { __type: 'NotFoundException', message: `Key '${input.KeyId}' does not exist` })
      if (target === 'TrentService.GetPublicKey') {
        const typed: Wire<GetPublicKeyCommandInput> = input as never
        const out: Wire<Omit<GetPublicKeyCommandOutput, '$metadata'>> = {
          KeyId: typed.KeyId,
          PublicKey: Buffer.concat([spkiPrefix, secp256k1.publicKeyCreate(key, false)]).toString('base64'),
          KeySpec: 'ECC_SECG_P256K1',
          KeyUsage: 'SIGN_VERIFY',
          SigningAlgorithms: ['ECDSA_SHA_256'],
        }
        return answer(200, out)
      }
      if (target === 'TrentService.Sign') {
        const sign = input as Wire<SignCommandInput>
        if (state.mode === 'hang') {
          hanging.add(res)
          return
        }
        if (state.mode === 'refuse')
          return answer(400, { __type: 'KMSInvalidStateException', message: 'the key is disabled' })
        if (sign.MessageType !== 'DIGEST' || sign.SigningAlgorithm !== 'ECDSA_SHA_256')
          return answer(400, { __type: 'ValidationException', message: 'expected a DIGEST and ECDSA_SHA_256' })
        const digest = Buffer.from(sign.Message ?? '', 'base64')
        if (digest.length !== 32) return answer(400, { __type: 'ValidationException', message: 'a digest is 32 bytes' })
        let { signature } = secp256k1.ecdsaSign(digest, key)
        if (state.mode === 'high-s') {
          const s = n - BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`)
          signature = Uint8Array.from([
            ...signature.subarray(0, 32),
            ...Buffer.from(s.toString(16).padStart(64, '0'), 'hex'),
          ])
        }
        state.signs++
        const out: Wire<Omit<SignCommandOutput, '$metadata'>> = {
          KeyId: input.KeyId,
          Signature: Buffer.from(toDer(signature)).toString('base64'),
          SigningAlgorithm: 'ECDSA_SHA_256',
        }
        return answer(200, out)
      }
      answer(400, { __type: 'UnknownOperationException', message: target })
    })
  })
  function answerEd25519(
    target: string,
    input: { KeyId?: string },
    key: import('node:crypto').KeyObject,
    answer: (status: number, json: unknown) => void,
    res: import('node:http').ServerResponse,
  ) {
    if (target === 'TrentService.GetPublicKey') {
      const out: Wire<Omit<GetPublicKeyCommandOutput, '$metadata'>> = {
        KeyId: input.KeyId,
        PublicKey: createPublicKey(key).export({ format: 'der', type: 'spki' }).toString('base64'),
        KeySpec: 'ECC_NIST_EDWARDS25519',
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: ['ED25519_SHA_512', 'ED25519_PH_SHA_512'],
      }
      return answer(200, out)
    }
    if (target === 'TrentService.Sign') {
      const sign = input as Wire<SignCommandInput>
      if (state.mode === 'hang') {
        hanging.add(res)
        return
      }
      if (state.mode === 'refuse')
        return answer(400, { __type: 'KMSInvalidStateException', message: 'the key is disabled' })
      if (sign.MessageType !== 'RAW' || sign.SigningAlgorithm !== 'ED25519_SHA_512')
        return answer(400, { __type: 'ValidationException', message: 'expected a RAW message and ED25519_SHA_512' })
      const message = Buffer.from(sign.Message ?? '', 'base64')
      if (message.length === 0 || message.length > 4096)
        return answer(400, { __type: 'ValidationException', message: 'a RAW message is 1 to 4096 bytes' })
      state.signs++
      const out: Wire<Omit<SignCommandOutput, '$metadata'>> = {
        KeyId: input.KeyId,
        Signature: signEd25519(null, message, key).toString('base64'),
        SigningAlgorithm: 'ED25519_SHA_512',
      }
      return answer(200, out)
    }
    answer(400, { __type: 'UnknownOperationException', message: target })
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  async function close() {
    for (const r of hanging) r.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return state
}

/** A 64-byte (r, s) as DER; high s kept as it is (secp256k1's own export would not normalise it either). */
function toDer(compact: Uint8Array): Uint8Array {
  const integer = (b: Uint8Array) => {
    let i = 0
    while (i < b.length - 1 && b[i] === 0) i++
    const v = b.subarray(i)
    return v[0]! & 0x80 ? [0x02, v.length + 1, 0, ...v] : [0x02, v.length, ...v]
  }
  const body = [...integer(compact.subarray(0, 32)), ...integer(compact.subarray(32))]
  return Uint8Array.from([0x30, body.length, ...body])
}
