// One key pair in a PKCS#11 token (an HSM; SoftHSM2 in tests), found by the label its private and
// public objects share: its public key's attributes, and signatures made inside the token. The
// private half is never read. The binding (`pkcs11js`, an optional dependency with a native part)
// is loaded only when a token is configured. Signing runs off the event loop (C_SignAsync), one
// operation at a time per session (PKCS#11 allows no more), each bounded by a timeout; a failure
// or a timeout is a 503 (0x40), and a session the token lost (logged out, reset) is opened and
// logged in again on the next signature.
import { createRequire } from 'node:module'
import { signerUnavailable } from './signerUnavailable.ts'

export type Pkcs11KeyParameters = {
  /** The token's PKCS#11 module (e.g. /usr/lib/softhsm/libsofthsm2.so). */
  modulePath: string
  tokenLabel: string
  /** The label shared by the key pair's private and public objects. */
  keyLabel: string
  /** The user PIN (from the environment; never logged). */
  pin: string
  /** How long one signature may take. Default 5 s. */
  timeoutMs?: number | undefined
}

export type Pkcs11Key = {
  /** An attribute of the public key object (CKA_EC_POINT: the key itself). */
  publicAttribute(type: number): Buffer
  /** The token's signature of `data` with `mechanism`, at most `maxLength` bytes. */
  sign(mechanism: number, data: Uint8Array, maxLength: number): Promise<Buffer>
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

/** The PKCS#11 return value's name (CKR_…), without the binding's call details. */
const reason = (err: unknown) => /CKR_\w+/.exec(String(err))?.[0] ?? (err as Error)?.message?.split(':')[0] ?? 'error'

export function openPkcs11Key({
  modulePath,
  tokenLabel,
  keyLabel,
  pin,
  timeoutMs = 5_000,
}: Pkcs11KeyParameters): Pkcs11Key {
  const { pkcs11, lib } = load(modulePath)

  function open() {
    const slot = pkcs11.C_GetSlotList(true).find((s) => pkcs11.C_GetTokenInfo(s).label.trim() === tokenLabel)
    if (slot === undefined) throw new Error(`no token labelled "${tokenLabel}" in ${modulePath}`)
    const session = pkcs11.C_OpenSession(slot, lib.CKF_SERIAL_SESSION | lib.CKF_RW_SESSION)
    try {
      pkcs11.C_Login(session, lib.CKU_USER, pin)
    } catch (err) {
      if (!/CKR_USER_ALREADY_LOGGED_IN/.test(String(err))) {
        pkcs11.C_CloseSession(session)
        throw new Error(`the token "${tokenLabel}" refused the PIN (${reason(err)})`)
      }
    }
    const find = (cls: number) => {
      pkcs11.C_FindObjectsInit(session, [
        { type: lib.CKA_CLASS, value: cls },
        { type: lib.CKA_LABEL, value: keyLabel },
      ])
      const found = pkcs11.C_FindObjects(session, 2)
      pkcs11.C_FindObjectsFinal(session)
      if (found.length !== 1)
        throw new Error(
          `the token "${tokenLabel}" holds ${found.length} ${cls === lib.CKO_PRIVATE_KEY ? 'private' : 'public'} keys labelled "${keyLabel}" (one is needed)`,
        )
      return found[0]!
    }
    try {
      return { session, privateKey: find(lib.CKO_PRIVATE_KEY), publicKey: find(lib.CKO_PUBLIC_KEY) }
    } catch (err) {
      pkcs11.C_CloseSession(session)
      throw err
    }
  }

  let current: ReturnType<typeof open> | undefined = open()
  /** The operation in progress on the session, which the next one waits for (even past its own timeout). */
  let queue: Promise<unknown> = Promise.resolve()

  return {
    publicAttribute(type) {
      current ??= open()
      const [{ value }] = pkcs11.C_GetAttributeValue(current.session, current.publicKey, [{ type }]) as unknown as [
        { value: Buffer },
      ]
      return value
    },
    sign(mechanism, data, maxLength) {
      const operation = queue.then(async () => {
        let keys: ReturnType<typeof open>
        try {
          keys = current ??= open()
        } catch (err) {
          throw signerUnavailable(
            `the PKCS#11 token "${tokenLabel}" could not be opened for key "${keyLabel}": ${(err as Error).message}`,
            err,
          )
        }
        try {
          pkcs11.C_SignInit(keys.session, { mechanism }, keys.privateKey)
          return await pkcs11.C_SignAsync(keys.session, Buffer.from(data), Buffer.alloc(maxLength))
        } catch (err) {
          // A session the token no longer knows (or no longer logged in) is opened again next time.
          if (
            /CKR_(USER_NOT_LOGGED_IN|SESSION_HANDLE_INVALID|SESSION_CLOSED|DEVICE_REMOVED|TOKEN_NOT_PRESENT|KEY_HANDLE_INVALID|OBJECT_HANDLE_INVALID|DEVICE_ERROR)/.test(
              String(err),
            )
          ) {
            if (current === keys) current = undefined
            try {
              pkcs11.C_CloseSession(keys.session)
            } catch {}
          }
          throw signerUnavailable(
            `the PKCS#11 token "${tokenLabel}" did not sign with key "${keyLabel}": ${reason(err)}`,
            err,
          )
        }
      })
      queue = operation.catch(() => undefined)
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              signerUnavailable(
                `the PKCS#11 token "${tokenLabel}" did not sign with key "${keyLabel}" within ${timeoutMs} ms`,
              ),
            ),
          timeoutMs,
        )
      })
      return Promise.race([operation, timeout]).finally(() => clearTimeout(timer))
    },
  }
}
