// A relayer key in a PKCS#11 token (an HSM; SoftHSM2 in tests): an EC key on secp256k1 whose
// private half is sensitive and never leaves the token. The address comes from the public key
// object's CKA_EC_POINT; each digest is signed with CKM_ECDSA (r || s). The binding (`pkcs11js`,
// an optional dependency with a native part) is loaded only when a token is configured. A token
// that fails to sign answers 503 (0x40) with Retry-After, before anything is journaled.
import { createRequire } from 'node:module'
import { bytesToHex, type LocalAccount } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'
import { GatewayError } from '../errors/gatewayError.ts'
import { Status } from '../status/statusCodes.ts'
import { toDigestSignerAccount } from './toDigestSignerAccount.ts'

export type Pkcs11SignerParameters = {
  /** The token's PKCS#11 module (e.g. /usr/lib/softhsm/libsofthsm2.so). */
  modulePath: string
  tokenLabel: string
  /** The label shared by the key pair's private and public objects. */
  keyLabel: string
  /** The user PIN (from the environment; never logged). */
  pin: string
}

type Pkcs11 = typeof import('pkcs11js')
type Module = InstanceType<Pkcs11['PKCS11']>

/** One loaded module per path, shared by every key on its tokens. */
const modules = new Map<string, { pkcs11: Module; lib: Pkcs11 }>()

function load(modulePath: string): { pkcs11: Module; lib: Pkcs11 } {
  let loaded = modules.get(modulePath)
  if (!loaded) {
    const lib = createRequire(import.meta.url)('pkcs11js') as Pkcs11
    const pkcs11 = new lib.PKCS11()
    pkcs11.load(modulePath)
    try {
      pkcs11.C_Initialize()
    } catch (err) {
      // Another user of the module in this process (a tool, a test) initialized it first.
      if (!/CKR_CRYPTOKI_ALREADY_INITIALIZED/.test(String(err))) throw err
    }
    loaded = { pkcs11, lib }
    modules.set(modulePath, loaded)
  }
  return loaded
}

export function createPkcs11Signer({ modulePath, tokenLabel, keyLabel, pin }: Pkcs11SignerParameters): LocalAccount & { backend: string } {
  const { pkcs11, lib } = load(modulePath)
  const slot = pkcs11.C_GetSlotList(true).find((s) => pkcs11.C_GetTokenInfo(s).label.trim() === tokenLabel)
  if (slot === undefined) throw new Error(`no token labelled "${tokenLabel}" in ${modulePath}`)
  const session = pkcs11.C_OpenSession(slot, lib.CKF_SERIAL_SESSION | lib.CKF_RW_SESSION)
  try {
    pkcs11.C_Login(session, lib.CKU_USER, pin)
  } catch (err) {
    if (!/CKR_USER_ALREADY_LOGGED_IN/.test(String(err))) throw new Error(`the token "${tokenLabel}" refused the PIN (${(err as Error).message.split(':')[0]})`)
  }
  const find = (cls: number) => {
    pkcs11.C_FindObjectsInit(session, [{ type: lib.CKA_CLASS, value: cls }, { type: lib.CKA_LABEL, value: keyLabel }])
    const found = pkcs11.C_FindObjects(session, 2)
    pkcs11.C_FindObjectsFinal(session)
    if (found.length !== 1) throw new Error(`the token "${tokenLabel}" holds ${found.length} ${cls === lib.CKO_PRIVATE_KEY ? 'private' : 'public'} keys labelled "${keyLabel}" (one is needed)`)
    return found[0]!
  }
  const privateKey = find(lib.CKO_PRIVATE_KEY)
  const [{ value: point }] = pkcs11.C_GetAttributeValue(session, find(lib.CKO_PUBLIC_KEY), [{ type: lib.CKA_EC_POINT }]) as unknown as [{ value: Buffer }]
  // CKA_EC_POINT is the DER OCTET STRING of the uncompressed point: 0x04 0x41 0x04 X Y.
  const raw = point.length === 67 && point[0] === 0x04 ? point.subarray(2) : point
  if (raw.length !== 65 || raw[0] !== 0x04) throw new Error(`the key "${keyLabel}" is not an uncompressed EC point (a secp256k1 key is needed)`)
  const publicKey = bytesToHex(raw)
  return toDigestSignerAccount({
    address: publicKeyToAddress(publicKey),
    publicKey,
    backend: 'pkcs11',
    async signDigest(digest) {
      let signature: Buffer
      try {
        pkcs11.C_SignInit(session, { mechanism: lib.CKM_ECDSA }, privateKey)
        signature = pkcs11.C_Sign(session, Buffer.from(digest), Buffer.alloc(64))
      } catch (err) {
        throw new GatewayError('The relayer\'s signer is unavailable', {
          code: 'SIGNER_UNAVAILABLE',
          status: Status.UNAVAILABLE,
          details: `the PKCS#11 token "${tokenLabel}" did not sign with key "${keyLabel}": ${(err as Error).message.split(':')[0]}`,
          headers: { 'retry-after': '5' },
          cause: err,
        })
      }
      return { r: BigInt(bytesToHex(signature.subarray(0, 32))), s: BigInt(bytesToHex(signature.subarray(32, 64))) }
    },
  })
}
