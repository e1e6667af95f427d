// Deploys a program the way `solana program deploy` does on a real cluster, through the BPF
// upgradeable loader (Loader V3): a buffer account, the ELF written into it in chunks, then
// `DeployWithMaxDataLen`, which runs the loader's deployment checks (ELF version, verifier) that
// LiteSVM's `addProgram` skips. Instructions are built from their bincode layout (u32 enum tag,
// then the fields), so nothing beyond @solana/kit is needed.
import {
  AccountRole,
  type Address,
  generateKeyPairSigner,
  getAddressEncoder,
  getProgramDerivedAddress,
  type Instruction,
  type KeyPairSigner,
  type TransactionSigner,
} from '@solana/kit'

export const loaderV3 = 'BPFLoaderUpgradeab1e11111111111111111111111' as Address
const systemProgram = '11111111111111111111111111111111' as Address
const rentSysvar = 'SysvarRent111111111111111111111111111111111' as Address
const clockSysvar = 'SysvarC1ock11111111111111111111111111111111' as Address

/** UpgradeableLoaderState sizes: Buffer {authority: Option<Pubkey>} and Program {programdata}. */
const bufferHeader = 4 + 1 + 32
const programSize = 4 + 32
/** Write data per transaction: 1,232 bytes minus signatures, keys and headers, with room to spare. */
const defaultChunk = 900

export type DeployWithLoaderV3Parameters = {
  elf: Uint8Array
  /** Pays every account's rent and the fees. */
  payer: KeyPairSigner
  /** The program id's key pair: it signs the program account's creation. */
  program: KeyPairSigner
  /** The upgrade authority the program data will name (the payer unless given). */
  authority?: TransactionSigner
  /** The rent-exempt minimum for an account of `space` bytes (getMinimumBalanceForRentExemption). */
  minimumBalance(space: bigint): Promise<bigint> | bigint
  /** Sends one transaction paid by the payer and throws if it fails. */
  send(instructions: Instruction[], payer: KeyPairSigner): Promise<unknown>
  chunkSize?: number
}

export async function deployWithLoaderV3({
  elf,
  payer,
  program,
  authority = payer,
  minimumBalance,
  send,
  chunkSize = defaultChunk,
}: DeployWithLoaderV3Parameters): Promise<{ programId: Address; programData: Address }> {
  const buffer = await generateKeyPairSigner()
  const [programData] = await getProgramDerivedAddress({
    programAddress: loaderV3,
    seeds: [getAddressEncoder().encode(program.address)],
  })
  const signer = (s: TransactionSigner) => ({ address: s.address, role: AccountRole.WRITABLE_SIGNER, signer: s })
  const readonlySigner = (s: TransactionSigner) => ({
    address: s.address,
    role: AccountRole.READONLY_SIGNER,
    signer: s,
  })

  const createAccount = async (account: KeyPairSigner, space: number): Promise<Instruction> => {
    const data = new Uint8Array(52)
    const view = new DataView(data.buffer)
    view.setUint32(0, 0, true)
    view.setBigUint64(4, await minimumBalance(BigInt(space)), true)
    view.setBigUint64(12, BigInt(space), true)
    data.set(getAddressEncoder().encode(loaderV3), 20)
    return { programAddress: systemProgram, accounts: [signer(payer), signer(account)], data }
  }
  const tagged = (tag: number, body = new Uint8Array(0)) => {
    const data = new Uint8Array(4 + body.length)
    new DataView(data.buffer).setUint32(0, tag, true)
    data.set(body, 4)
    return data
  }

  // InitializeBuffer (0): the buffer, then its authority (read-only, need not sign).
  await send(
    [
      await createAccount(buffer, bufferHeader + elf.length),
      {
        programAddress: loaderV3,
        accounts: [
          { address: buffer.address, role: AccountRole.WRITABLE },
          { address: authority.address, role: AccountRole.READONLY },
        ],
        data: tagged(0),
      },
    ],
    payer,
  )
  // Write (1) { offset: u32, bytes: Vec<u8> (u64 length, then the bytes) }, signed by the buffer's authority.
  for (let offset = 0; offset < elf.length; offset += chunkSize) {
    const chunk = elf.subarray(offset, offset + chunkSize)
    const body = new Uint8Array(4 + 8 + chunk.length)
    const view = new DataView(body.buffer)
    view.setUint32(0, offset, true)
    view.setBigUint64(4, BigInt(chunk.length), true)
    body.set(chunk, 12)
    await send(
      [
        {
          programAddress: loaderV3,
          accounts: [{ address: buffer.address, role: AccountRole.WRITABLE }, readonlySigner(authority)],
          data: tagged(1, body),
        },
      ],
      payer,
    )
  }
  // DeployWithMaxDataLen (2) { max_data_len: u64 }: payer, program data, program, buffer, rent, clock, system program, authority.
  const maxDataLen = new Uint8Array(8)
  new DataView(maxDataLen.buffer).setBigUint64(0, BigInt(elf.length), true)
  await send(
    [
      await createAccount(program, programSize),
      {
        programAddress: loaderV3,
        accounts: [
          signer(payer),
          { address: programData, role: AccountRole.WRITABLE },
          { address: program.address, role: AccountRole.WRITABLE },
          { address: buffer.address, role: AccountRole.WRITABLE },
          { address: rentSysvar, role: AccountRole.READONLY },
          { address: clockSysvar, role: AccountRole.READONLY },
          { address: systemProgram, role: AccountRole.READONLY },
          readonlySigner(authority),
        ],
        data: tagged(2, maxDataLen),
      },
    ],
    payer,
  )
  return { programId: program.address, programData }
}
