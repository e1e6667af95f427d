// A real PKCS#11 token for tests: SoftHSM2 (Debian's softhsm2, which scripts/ensureTestTools.sh
// installs), in a directory of its own, with secp256k1 (EVM) and Ed25519 (Solana, Sui) key pairs
// generated inside it (the private halves sensitive and not extractable: nobody, the test
// included, can read them out).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const softHsmModule = [
  '/usr/lib/softhsm/libsofthsm2.so',
  '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so',
].find((p) => existsSync(p))

/** Whether the optional native binding built at install (it needs a C++ compiler). */
export const pkcs11Binding = (() => {
  try {
    createRequire(import.meta.url)('pkcs11js')
    return true
  } catch {
    return false
  }
})()

/** DER of the secp256k1 curve's OID (1.3.132.0.10): CKA_EC_PARAMS. */
const secp256k1Params = Buffer.from('06052b8104000a', 'hex')
/** DER of Ed25519's OID (1.3.101.112): CKA_EC_PARAMS of an Edwards key. */
const ed25519Params = Buffer.from('06032b6570', 'hex')
/** PKCS#11 3.0's Edwards-curve key pair generation (pkcs11js names no constant for it). */
const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055

export type SoftHsmToken = { modulePath: string; tokenLabel: string; pin: string; dir: string; remove(): void }

/**
 * A fresh token with these key pairs (secp256k1; `ed25519Labels`: Ed25519); SOFTHSM2_CONF points
 * this process (and its children) at it.
 */
export function createSoftHsmToken(
  keyLabels: string[],
  tokenLabel = 'relayers',
  pin = '1234',
  { ed25519Labels = [] }: { ed25519Labels?: string[] } = {},
): SoftHsmToken {
  if (!softHsmModule) throw new Error('SoftHSM2 is not installed (apt-get install softhsm2)')
  const dir = mkdtempSync(join(tmpdir(), 'softhsm-'))
  mkdirSync(join(dir, 'tokens'))
  writeFileSync(
    join(dir, 'softhsm2.conf'),
    `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`,
  )
  process.env.SOFTHSM2_CONF = join(dir, 'softhsm2.conf')
  execFileSync(
    'softhsm2-util',
    ['--init-token', '--free', '--label', tokenLabel, '--pin', pin, '--so-pin', '87654321'],
    { stdio: 'pipe' },
  )
  const lib = createRequire(import.meta.url)('pkcs11js') as typeof import('pkcs11js')
  const pkcs11 = new lib.PKCS11()
  pkcs11.load(softHsmModule)
  try {
    pkcs11.C_Initialize()
  } catch (err) {
    if (!/CKR_CRYPTOKI_ALREADY_INITIALIZED/.test(String(err))) throw err
  }
  const slot = pkcs11.C_GetSlotList(true).find((s) => pkcs11.C_GetTokenInfo(s).label.trim() === tokenLabel)!
  const session = pkcs11.C_OpenSession(slot, lib.CKF_SERIAL_SESSION | lib.CKF_RW_SESSION)
  pkcs11.C_Login(session, lib.CKU_USER, pin)
  for (const label of keyLabels) {
    pkcs11.C_GenerateKeyPair(
      session,
      { mechanism: lib.CKM_EC_KEY_PAIR_GEN },
      [
        { type: lib.CKA_TOKEN, value: true },
        { type: lib.CKA_LABEL, value: label },
        { type: lib.CKA_EC_PARAMS, value: secp256k1Params },
        { type: lib.CKA_VERIFY, value: true },
      ],
      [
        { type: lib.CKA_TOKEN, value: true },
        { type: lib.CKA_LABEL, value: label },
        { type: lib.CKA_SIGN, value: true },
        { type: lib.CKA_PRIVATE, value: true },
        { type: lib.CKA_SENSITIVE, value: true },
        { type: lib.CKA_EXTRACTABLE, value: false },
      ],
    )
  }
  for (const label of ed25519Labels) {
    pkcs11.C_GenerateKeyPair(
      session,
      { mechanism: CKM_EC_EDWARDS_KEY_PAIR_GEN },
      [
        { type: lib.CKA_TOKEN, value: true },
        { type: lib.CKA_LABEL, value: label },
        { type: lib.CKA_EC_PARAMS, value: ed25519Params },
        { type: lib.CKA_VERIFY, value: true },
      ],
      [
        { type: lib.CKA_TOKEN, value: true },
        { type: lib.CKA_LABEL, value: label },
        { type: lib.CKA_SIGN, value: true },
        { type: lib.CKA_PRIVATE, value: true },
        { type: lib.CKA_SENSITIVE, value: true },
        { type: lib.CKA_EXTRACTABLE, value: false },
      ],
    )
  }
  pkcs11.C_CloseSession(session)
  return {
    modulePath: softHsmModule,
    tokenLabel,
    pin,
    dir,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** Tries to read a private key's value out of the token: what a sensitive key must refuse. */
export function readPrivateValue(token: SoftHsmToken, keyLabel: string): Buffer {
  const lib = createRequire(import.meta.url)('pkcs11js') as typeof import('pkcs11js')
  const pkcs11 = new lib.PKCS11()
  pkcs11.load(token.modulePath)
  try {
    pkcs11.C_Initialize()
  } catch {}
  const slot = pkcs11.C_GetSlotList(true).find((s) => pkcs11.C_GetTokenInfo(s).label.trim() === token.tokenLabel)!
  const session = pkcs11.C_OpenSession(slot, lib.CKF_SERIAL_SESSION)
  try {
    pkcs11.C_Login(session, lib.CKU_USER, token.pin)
  } catch {}
  pkcs11.C_FindObjectsInit(session, [
    { type: lib.CKA_CLASS, value: lib.CKO_PRIVATE_KEY },
    { type: lib.CKA_LABEL, value: keyLabel },
  ])
  const [key] = pkcs11.C_FindObjects(session, 1)
  pkcs11.C_FindObjectsFinal(session)
  return pkcs11.C_GetAttributeValue(session, key!, [{ type: lib.CKA_VALUE }])[0]!.value as Buffer
}

/**
 * Logs this process out of the token (a PKCS#11 login is the application's, shared by its
 * sessions): the gateway's next signature is refused (CKR_USER_NOT_LOGGED_IN), as after a token
 * reset. The gateway logs in again on the signature after.
 */
export function logOutOfToken(token: SoftHsmToken): void {
  const lib = createRequire(import.meta.url)('pkcs11js') as typeof import('pkcs11js')
  const pkcs11 = new lib.PKCS11()
  pkcs11.load(token.modulePath)
  try {
    pkcs11.C_Initialize()
  } catch {}
  const slot = pkcs11.C_GetSlotList(true).find((s) => pkcs11.C_GetTokenInfo(s).label.trim() === token.tokenLabel)!
  const session = pkcs11.C_OpenSession(slot, lib.CKF_SERIAL_SESSION)
  try {
    pkcs11.C_Logout(session)
  } finally {
    pkcs11.C_CloseSession(session)
  }
}
